import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/trpc/client';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Trellis', template: '%s · Trellis' },
  description: 'Design meshes of agents and workflows, run them, and see every message accounted for.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-full font-sans">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
