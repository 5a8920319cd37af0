import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { UserList } from '@/components/users/user-list';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Users' };

/** People and their roles (admins only; the procedures refuse anyone else as well). */
export default async function UsersPage() {
  const user = await currentUser();
  if (user?.role !== 'admin') notFound();
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <UserList selfId={user.id} />
    </main>
  );
}
