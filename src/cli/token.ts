/**
 * A fixed bearer token for `--http`: from `--token-file FILE` or the BETTER_EDIT_TOOLS_TOKEN environment
 * variable, so that a client (a conformance runner, a proxy) can be configured once instead of reading stderr.
 * The file is untrusted input: refused unless it is a regular file (a FIFO would block the start), private to
 * the user (like an SSH key), small, and holds one token of bearer-token characters.
 */
import { constants, promises as fs } from 'node:fs';

export const TOKEN_ENV = 'BETTER_EDIT_TOOLS_TOKEN';
export const MIN_TOKEN_CHARS = 16;
export const MAX_TOKEN_CHARS = 512;
const MAX_TOKEN_FILE_BYTES = 4096;
// RFC 6750 b64token: what fits in "Authorization: Bearer <token>" without quoting
const TOKEN_CHARS = /^[A-Za-z0-9\-._~+/]+=*$/;

export function checkToken(token: string, from: string): string {
  if (token.length < MIN_TOKEN_CHARS || token.length > MAX_TOKEN_CHARS) {
    throw new Error(`${from}: the token must have ${MIN_TOKEN_CHARS}..${MAX_TOKEN_CHARS} characters, got ${token.length}; e.g. openssl rand -hex 32`);
  }
  if (!TOKEN_CHARS.test(token)) {
    throw new Error(`${from}: the token may use only A-Z a-z 0-9 - . _ ~ + / (and = at the end); e.g. openssl rand -hex 32`);
  }
  return token;
}

/** The token of `--token-file`, else of the environment, else undefined (the host makes a random one). */
export async function readFixedToken(tokenFile: string | undefined, env: Record<string, string | undefined>, platform = process.platform): Promise<{ token: string; source: string } | undefined> {
  if (tokenFile !== undefined) return { token: await readTokenFile(tokenFile, platform), source: tokenFile };
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { token: checkToken(fromEnv.trim(), TOKEN_ENV), source: TOKEN_ENV };
  return undefined;
}

async function readTokenFile(file: string, platform: string): Promise<string> {
  const from = `--token-file ${file}`;
  const st = await fs.stat(file).catch((e: NodeJS.ErrnoException) => {
    throw new Error(`${from}: cannot read it (${e.code ?? e.message})`);
  });
  // checked before open: opening a FIFO for reading waits for a writer
  if (!st.isFile()) throw new Error(`${from}: not a regular file`);
  if (platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new Error(`${from}: readable or writable by other users (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 ${file}`);
  }
  if (st.size > MAX_TOKEN_FILE_BYTES) throw new Error(`${from}: ${st.size} bytes, a token file has at most ${MAX_TOKEN_FILE_BYTES}`);
  // O_NONBLOCK: if the path was swapped for a FIFO since the stat, open does not wait; fstat then refuses it
  const fh = await fs.open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const again = await fh.stat();
    if (!again.isFile()) throw new Error(`${from}: not a regular file`);
    const buf = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_TOKEN_FILE_BYTES) throw new Error(`${from}: a token file has at most ${MAX_TOKEN_FILE_BYTES} bytes`);
    return checkToken(buf.subarray(0, bytesRead).toString('utf8').trim(), from);
  } finally {
    await fh.close();
  }
}
