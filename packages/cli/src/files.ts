/** Reading the files named on the command line; an unreadable file is a usage error (exit 2). */
import { readFile } from 'node:fs/promises';
import { CliError } from './fail';

/** The file's bytes. @throws CliError (exit 2) naming the file. */
export async function readBytes(path: string, what: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new CliError(`cannot read ${what} ${path}: ${why}`);
  }
}

/** The file as UTF-8 text (for mesh files). */
export async function readText(path: string, what: string): Promise<string> {
  return new TextDecoder('utf-8').decode(await readBytes(path, what));
}
