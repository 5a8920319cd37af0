import NextAuth from 'next-auth';
import { authOptions } from '@/server/auth';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

type Handler = (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => Promise<Response>;

// Built per request so NEXTAUTH_SECRET is read at run time, not while `next build` collects routes.
const handler: Handler = (req, ctx) => (NextAuth(authOptions()) as Handler)(req, ctx);

export { handler as GET, handler as POST };
