/**
 * Sign-in: next-auth v4 with email and password (credentials), JWT sessions signed with NEXTAUTH_SECRET.
 * The password check is the engine's `verifyCredentials`; the session carries id, email, name and role.
 */
import { getServerSession, type NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { verifyCredentials, type SignedInUser } from '@trellis/engine/users/verify-credentials';
import { webEnv } from '../env';
import { getRuntime } from './runtime';

declare module 'next-auth' {
  interface Session {
    user: SignedInUser;
  }
  interface User {
    role?: SignedInUser['role'];
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    uid?: string;
    role?: SignedInUser['role'];
  }
}

let options: NextAuthOptions | undefined;

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
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const { db } = await getRuntime();
          return verifyCredentials(db, { email: credentials.email, password: credentials.password });
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = user.id;
          token.role = user.role ?? 'member';
        }
        return token;
      },
      session({ session, token }) {
        session.user = {
          id: token.uid ?? '',
          email: token.email ?? '',
          name: token.name ?? token.email ?? '',
          role: token.role ?? 'member',
        };
        return session;
      },
    },
  };
  return options;
}

/** The signed-in user of the current request, or null. */
export async function currentUser(): Promise<SignedInUser | null> {
  const session = await getServerSession(authOptions());
  return session?.user.id ? session.user : null;
}
