import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { oidcRefusalSentence, type OidcRefusal } from '@trellis/engine/users/sign-in-oidc';
import { currentUser, ssoName } from '@/server/auth';
import { SignInForm } from './sign-in-form';
import { SsoButton } from './sso-button';

const REFUSALS: readonly OidcRefusal[] = ['disabled', 'not_invited', 'no_email', 'unverified_email', 'service_account', 'no_role'];

/** What to tell a person sent back from single sign-on: a refusal by its code, or next-auth's own error. */
function ssoMessage(params: Record<string, string | string[] | undefined>): string | null {
  const code = REFUSALS.find((r) => r === params.sso);
  if (code) return `Single sign-on refused: ${oidcRefusalSentence(code)}.`;
  const error = typeof params.error === 'string' ? params.error : undefined;
  if (error === 'AccessDenied') return 'Single sign-on refused.';
  if (error && error !== 'CredentialsSignin') return 'Single sign-on did not complete; try again, or ask an admin to check the identity provider settings.';
  return null;
}

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

/** Only same-site paths are followed after signing in. */
function safePath(value: string | string[] | undefined): string {
  const v = Array.isArray(value) ? value[0] : value;
  return v && v.startsWith('/') && !v.startsWith('//') ? v : '/meshes';
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safePath(params.callbackUrl);
  if (await currentUser()) redirect(next);
  const sso = ssoName();
  const refused = ssoMessage(params);
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <h1 className="mb-1 text-2xl font-semibold tracking-tight">Trellis</h1>
        <p className="mb-6 text-sm text-slate-600">Sign in to design and run meshes.</p>
        {refused && (
          <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="signin-sso-error">
            {refused}
          </p>
        )}
        {sso && (
          <div className="mb-4">
            <SsoButton name={sso} next={next} />
            <p className="mt-4 text-center text-xs text-slate-500">or with your email and password</p>
          </div>
        )}
        <SignInForm next={next} />
      </div>
    </main>
  );
}
