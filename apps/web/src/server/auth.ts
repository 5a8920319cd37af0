/**
 * Sign-in: next-auth v4 with email and password (credentials), JWT sessions signed with NEXTAUTH_SECRET.
 * The password check is the engine's `verifyCredentials`, behind the Redis-backed sign-in limits. The JWT carries only the user id and the
 * session version (`uid`, `sv`); every request reads the user's row (`loadSessionUser`), so a role
 * change, a disable, a removal or a sign-out ends the session at once, not when the JWT expires.
 */
import { getServerSession, type NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { endSessions } from '@trellis/engine/users/own-account';
import { loadSessionUser, type SessionClaims } from '@trellis/engine/users/session-user';
import type { Engine } from '@trellis/engine/engine';
import { signInGuard, type SignInGuard } from '@trellis/engine/users/sign-in-limit';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';
import { webEnv } from '../env';
import { getRuntime } from './runtime';

declare module 'next-auth' {
  interface Session {
    user: { id: string; email: string; name: string };
    sessionVersion: number;
  }
  interface User {
    sessionVersion?: number;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    uid?: string;
    sv?: number;
  }
}

let options: NextAuthOptions | undefined;
const guards = new WeakMap<Engine, SignInGuard>();

function guardFor(engine: Engine): SignInGuard {
  let guard = guards.get(engine);
  if (!guard) guards.set(engine, (guard = signInGuard(engine.redis, engine.config.prefix)));
  return guard;
}

/** The caller's address: the first X-Forwarded-For hop (set by Next.js or the proxy in front), else X-Real-IP. */
function clientAddress(headers: Record<string, unknown> | undefined): string {
  const pick = (name: string) => {
    const v = headers?.[name];
    return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
  };
  return pick('x-forwarded-for')?.split(',')[0]?.trim() || pick('x-real-ip') || 'unknown';
}

/** The next-auth options, built on first use (the secret is read at request time, never at build). */
export function authOptions(): NextAuthOptions {
  options ??= {
    secret: webEnv().NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: 12 * 60 * 60 },
    pages: { signIn: '/signin' },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: {
          email: { label: 'Email', type: 'email' },
          password: { label: 'Password', type: 'password' },
        },
        async authorize(credentials, req) {
          if (!credentials?.email || !credentials.password) return null;
          const { db, engine } = await getRuntime();
          // A SignInLimitedError's sentence reaches the sign-in form as the error to show.
          return guardFor(engine).signIn(db, { email: credentials.email, password: credentials.password, address: clientAddress(req.headers) });
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = user.id;
          token.sv = user.sessionVersion ?? 0;
        }
        return token;
      },
      session({ session, token }) {
        session.user = { id: token.uid ?? '', email: token.email ?? '', name: token.name ?? token.email ?? '' };
        session.sessionVersion = token.sv ?? 0;
        return session;
      },
    },
    events: {
      // Signing out ends every session of the person (one version per user), not only this cookie.
      async signOut({ token }) {
        if (!token.uid) return;
        const { db } = await getRuntime();
        await endSessions(db, token.uid);
      },
    },
  };
  return options;
}

/** The session claims of the current request (not yet checked against the users row), or null. */
export async function currentSession(): Promise<SessionClaims | null> {
  const session = await getServerSession(authOptions());
  return session?.user.id ? { userId: session.user.id, sessionVersion: session.sessionVersion } : null;
}

/** The signed-in user of the current request, checked against the users row, or null. */
export async function currentUser(): Promise<SignedInUser | null> {
  const claims = await currentSession();
  if (!claims) return null;
  return loadSessionUser((await getRuntime()).db, claims);
}
