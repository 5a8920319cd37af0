'use client';
/**
 * State kept in the page's URL query string, so reload, Back and a shared link restore it. `parse`
 * reads the value from the query (and must accept anything: a hand-edited link), `format` writes it
 * back (`''` for the default). Updates replace the history entry through the History API, which
 * Next.js's router follows (`useSearchParams` sees them) without a server round trip.
 */
import { usePathname, useSearchParams } from 'next/navigation';
import { useCallback, useMemo } from 'react';

export function useQueryState<T>(parse: (params: URLSearchParams) => T, format: (value: T) => string): [T, (next: T) => void] {
  const params = useSearchParams();
  const pathname = usePathname();
  const search = params.toString();
  const value = useMemo(() => parse(new URLSearchParams(search)), [parse, search]);
  const set = useCallback(
    (next: T) => {
      const qs = format(next);
      window.history.replaceState(null, '', qs ? `${pathname}?${qs}` : pathname);
    },
    [format, pathname],
  );
  return [value, set];
}
