/**
 * The records check itself, a pure function: finds the police report number in the file (the
 * `report_number` field, else the first `PR-YYYY-NNNNNN` in `text`) and looks it up in the bundled
 * register (reports.json, invented records). The answer is the file with `report_number` and
 * `records` added; an unknown or missing number is an answer too (`found: false`), not a failure.
 */

/** One entry of the register. */
export interface ReportRecord {
  station: string;
  date_reported: string;
  offence: string;
  status: string;
  officer_badge: string;
}

const NUMBER = /\bPR-\d{4}-\d{6}\b/;

/** Checks one file's payload against `register`. */
export function checkRecords(payload: unknown, register: Readonly<Record<string, ReportRecord>>): Record<string, unknown> {
  const file = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : { value: payload };
  const given = typeof file.report_number === 'string' ? file.report_number.trim() : undefined;
  const number = given ?? (typeof file.text === 'string' ? NUMBER.exec(file.text)?.[0] : undefined);
  if (!number) return { ...file, report_number: null, records: { found: false, reason: 'no police report number in the file' } };
  const record = Object.hasOwn(register, number) ? register[number] : undefined;
  return {
    ...file,
    report_number: number,
    records: record ? { found: true, ...record } : { found: false, reason: `no report ${number} in the register` },
  };
}
