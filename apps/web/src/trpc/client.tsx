'use client';
/** The tRPC client for React: `useTRPC()` gives typed queryOptions/mutationOptions for TanStack Query. */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useState, type ReactNode } from 'react';
import superjson from 'superjson';
import type { AppRouter } from '@trellis/api/root';

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

function isUnauthorized(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED';
}

function toSignIn(err: unknown): void {
  if (isUnauthorized(err)) window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname)}`);
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: toSignIn }),
    mutationCache: new MutationCache({ onError: toSignIn }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        // Bad input, missing things and refusals will not change by asking again.
        retry: (count, err) => {
          const status = err instanceof TRPCClientError ? (err.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
          return (status === undefined || status >= 500) && count < 2;
        },
      },
    },
  });
}

let browserClient: QueryClient | undefined;

function getQueryClient(): QueryClient {
  if (typeof window === 'undefined') return makeQueryClient();
  browserClient ??= makeQueryClient();
  return browserClient;
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // Queries go as POST too: validation sends the whole mesh, which would not fit in a URL.
      links: [httpBatchLink({ url: '/api/trpc', transformer: superjson, methodOverride: 'POST' })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
