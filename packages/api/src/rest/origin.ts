/**
 * The Origin check for cookie-authenticated requests that change something (issue 12): a browser
 * sends `Origin` on every cross-site POST, so a POST signed in by cookie whose Origin is another
 * site is refused (a cross-site request forgery). tRPC is not routed here; next-auth has its own
 * CSRF token. Requests without Origin or Sec-Fetch-Site come from scripts, which a page on another
 * site cannot make carry the cookie.
 */
import { EngineError } from '@trellis/engine/errors';

/** A cookie-authenticated change from another site (HTTP 403). */
export class OriginRefusedError extends EngineError {
  static override readonly httpStatus = 403;
  constructor(origin: string) {
    super('origin_refused', `refused by the same-origin policy: a signed-in change must come from this site, not ${origin}`);
  }
}

/** The origins this request may come from: its own URL's, and the one the proxy in front names. */
function ownOrigins(req: Request): Set<string> {
  const own = new Set([new URL(req.url).origin]);
  const host = req.headers.get('x-forwarded-host') ?? req.headers.get('host');
  if (host) own.add(`${req.headers.get('x-forwarded-proto') ?? new URL(req.url).protocol.replace(':', '')}://${host}`);
  return own;
}

/** @throws OriginRefusedError when a state-changing request comes from another site. */
export function checkOrigin(req: Request): void {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method.toUpperCase())) return;
  const origin = req.headers.get('origin');
  if (origin) {
    if (!ownOrigins(req).has(origin)) throw new OriginRefusedError(origin);
    return;
  }
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw new OriginRefusedError(`a ${site} page`);
}
