import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { AssistantPanel } from '@/components/assistant/assistant-panel';
import { RoleProvider } from '@/components/ui/access';
import { NavBar } from '@/components/ui/nav-bar';
import { currentUser } from '@/server/auth';

export const dynamic = 'force-dynamic';

/** Every page here needs a signed-in user; the rest go to the sign-in page. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect('/signin');
  return (
    <RoleProvider role={user.role}>
      <div className="flex min-h-screen flex-col">
        {/* The assistant's toggle sits in the top bar, so it never covers a page's content. */}
        <NavBar email={user.email} role={user.role}><AssistantPanel /></NavBar>
        <div className="flex flex-1 flex-col">{children}</div>
      </div>
    </RoleProvider>
  );
}
