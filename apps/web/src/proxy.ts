/**
 * Runs before routing for /api/v1: a path that is not validly percent-encoded (e.g. `%E0%A4%A`) is
 * answered 400 `bad_input` naming the path, as the REST router itself does, instead of failing in
 * the framework's own decoding of the route's parameters (a plain 500).
 */
import { NextResponse, type NextRequest } from 'next/server';

export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  try {
    decodeURIComponent(pathname);
  } catch {
    return NextResponse.json({ error: { code: 'bad_input', message: `path: ${pathname} is not validly URL-encoded` } }, { status: 400 });
  }
  return NextResponse.next();
}

export const config = { matcher: '/api/v1/:path*' };
