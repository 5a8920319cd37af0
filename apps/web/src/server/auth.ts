/**
 * Sign-in: next-auth v4 with email and password (credentials) and, when TRELLIS_OIDC_ISSUER is set,
 * single sign-on (OpenID Connect, server/oidc.ts); JWT sessions signed with NEXTAUTH_SECRET.
 * The password check is the engine's `verifyCredentials`, behind the Redis-backed sign-in limits. The JWT carries only the user id and the
 * session version (`uid`, `sv`); every request reads the user's row (`loadSessionUser`), so a role
 * change, a disable, a removal or a sign-out ends the session at once, not when the JWT expires.
 */
import { getServerSession, type NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { clientAddress, parseProxyTrust, type ProxyTrust } from '@trellis/api/security/client-address';
import { isEngineError } from '@trellis/engine/errors';
import { type OidcSignInRefusedError, signInWithOidc } from '@trellis/engine/users/sign-in-oidc';
import { endSessions } from '@trellis/engine/users/own-account';
import { loadSessionUser, type SessionClaims } from '@trellis/engine/users/session-user';
import type { Engine } from '@trellis/engine/engine';
import { signInGuard, type SignInGuard } from '@trellis/engine/users/sign-in-limit';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';
import { webEnv } from '../env';
import { OIDC_PROVIDER_ID, oidcSettings } from './oidc';
import { getRuntime } from './runtime';

declare module 'next-auth' {
  interface Session {
    user: { id: string; email: string; name: string };
    sessionVersion: number;
  }
  interface User {
    sessionVersion?: number;
    /** Single sign-on only: the provider's claims, read by the sign-in callback. */
    claims?: Record<string, unknown>;
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
  if (!guard) guards.set(engine, (guard = signInGuard(engine.localBus ? undefined : engine.redis, engine.config.prefix)));
  return guard;
}

let trust: ProxyTrust | undefined;

/** The caller's address: the socket's peer, or from X-Forwarded-For as far as TRELLIS_TRUST_PROXY trusts it. */
function callerAddress(headers: Record<string, unknown> | undefined): string {
  trust ??= parseProxyTrust(webEnv().TRELLIS_TRUST_PROXY);
  return clientAddress(headers, trust);
}

/** The next-auth options, built on first use (the secret is read at request time, never at build). */
export function authOptions(): NextAuthOptions {
  if (options) return options;
  const sso = oidcSettings(webEnv());
  options = {
    secret: webEnv().NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: 12 * 60 * 60 },
    pages: { signIn: '/signin' },
    providers: [
      ...(sso ? [sso.provider] : []),
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
          return guardFor(engine).signIn(db, { email: credentials.email, password: credentials.password, address: callerAddress(req.headers) });
        },
      }),
    ],
    callbacks: {
      async signIn({ user, account }) {
        if (account?.provider !== OIDC_PROVIDER_ID || !sso) return true;
        const { db } = await getRuntime();
        try {
          const signed = await signInWithOidc(db, { issuer: sso.issuer, claims: user.claims ?? {} }, sso.policy);
          // The object next-auth passes on to the jwt callback: from here on it is the Trellis user.
          Object.assign(user, { id: signed.id, email: signed.email, name: signed.name, sessionVersion: signed.sessionVersion, claims: undefined });
          return true;
        } catch (err) {
          // A refusal's code (never its text) travels in the URL; the sign-in page says the sentence.
          if (isEngineError(err, 'sso_refused')) return `/signin?sso=${(err as OidcSignInRefusedError).reason}`;
          throw err;
        }
      },
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

/** The single sign-on button's label, or null when it is not configured. */
export function ssoName(): string | null {
  return webEnv().TRELLIS_OIDC_ISSUER ? webEnv().TRELLIS_OIDC_NAME : null;
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
