/** Recognising TLS certificate refusals in connection errors; no dependencies, so any package may import it. */

/**
 * True when a connection error is Node's TLS layer refusing the server's certificate (untrusted CA,
 * self-signed, host not among its names, expired): retrying cannot help, the trust settings must change.
 * Matches the messages of OpenSSL's verify errors and ERR_TLS_CERT_ALTNAME_INVALID as Node words them.
 */
export function isCertificateRefusal(message: string): boolean {
  return /certificate|altnames|issuer/i.test(message);
}
