'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { signOut } from 'next-auth/react';
import type { Role } from '@trellis/engine/users/roles';
import { LiveUpdates } from '@/components/live/live-updates';

const LINKS = [
  { href: '/meshes', label: 'Meshes' },
  { href: '/runs', label: 'Runs' },
  { href: '/exceptions', label: 'Exceptions' },
  { href: '/actions', label: 'Action Center', testId: 'nav-actions' },
  { href: '/services', label: 'Services' },
  { href: '/users', label: 'Users', adminOnly: true },
  { href: '/audit', label: 'Audit', adminOnly: true },
  { href: '/secrets', label: 'Secrets', adminOnly: true },
  { href: '/connections', label: 'Connections', adminOnly: true },
  { href: '/egress', label: 'Egress', adminOnly: true },
  { href: '/tools', label: 'Tools', adminOnly: true },
] as const;

/**
 * The top bar: the pages the person's role can use, `children` (the assistant's toggle), who is signed
 * in (a link to their account), sign-out.
 */
export function NavBar({ email, role, children }: { email: string; role: Role; children?: ReactNode }) {
  const path = usePathname();
  const links = LINKS.filter((l) => !('adminOnly' in l) || role === 'admin');
  return (
    <header className="flex h-12 shrink-0 items-center gap-6 border-b border-slate-200 bg-white px-4" data-testid="nav">
      <Link href="/meshes" className="font-semibold tracking-tight">
        Trellis
      </Link>
      <nav className="flex gap-1 text-sm">
        {links.map((l) => (
          <Link key={l.href} href={l.href} data-testid={'testId' in l ? l.testId : `nav-${l.label.toLowerCase()}`}
            className={`rounded px-2 py-1 ${path.startsWith(l.href) ? 'bg-slate-100 font-medium text-slate-900' : 'text-slate-600 hover:text-slate-900'}`}>
            {l.label}
          </Link>
        ))}
      </nav>
      <div className="ml-auto flex items-center gap-3 text-sm text-slate-600">
        <LiveUpdates />
        {children}
        <Link href="/account" className="hover:text-slate-900" data-testid="nav-user" title={`Signed in as ${role}`}>
          {email}
        </Link>
        <button type="button" onClick={() => void signOut({ callbackUrl: '/signin' })} className="rounded px-2 py-1 hover:bg-slate-100" data-testid="nav-signout">
          Sign out
        </button>
      </div>
    </header>
  );
}
