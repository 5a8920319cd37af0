import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { ApiTokens } from '@/components/users/api-tokens';
import { ChangePassword } from '@/components/users/change-password';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Your account' };

/** The signed-in person's own account: who they are, their role, their password, their API tokens. */
export default async function AccountPage() {
  const user = await currentUser();
  if (!user) redirect('/signin');
  return (
    <main className="mx-auto w-full max-w-5xl space-y-6 px-6 py-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Your account</h1>
        <p className="text-sm text-slate-600" data-testid="account-role">
          {user.email} · {user.role}
        </p>
      </div>
      <ChangePassword />
      <ApiTokens />
    </main>
  );
}
