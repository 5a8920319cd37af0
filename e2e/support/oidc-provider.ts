/**
 * A real OpenID Connect provider for the single sign-on spec: the npm `oidc-provider` package on
 * 127.0.0.1, one confidential client (Trellis's callback), PKCE required, and its development
 * login and consent pages. Any login name is accepted; the account's claims come from `accounts`.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Provider from 'oidc-provider';

/** The claims each login name gets; unknown names get no groups. */
export type Accounts = Record<string, { groups: string[] }>;

/** What the provider saw of each authorization request (to check PKCE). */
export interface SeenRequest {
  codeChallengeMethod: string | null;
  hasCodeChallenge: boolean;
}

/** Starts the provider at `issuer` (http://127.0.0.1:<port>) for the app at `appUrl`. */
export async function startOidcProvider(issuer: string, appUrl: string, accounts: Accounts): Promise<{ seen: SeenRequest[]; close(): Promise<void> }> {
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'trellis-e2e',
        client_secret: 'e2e-oidc-client-secret',
        redirect_uris: [`${appUrl}/api/auth/callback/oidc`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, email: `${id}@sso.e2e.test`, email_verified: true, name: id, groups: accounts[id]?.groups ?? [] }),
    }),
    cookies: { keys: ['e2e-oidc-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  const seen: SeenRequest[] = [];
  provider.use(async (ctx, next) => {
    if (ctx.path === '/auth') {
      const q = ctx.query;
      seen.push({ codeChallengeMethod: typeof q.code_challenge_method === 'string' ? q.code_challenge_method : null, hasCodeChallenge: typeof q.code_challenge === 'string' });
    }
    await next();
  });
  const port = Number(new URL(issuer).port);
  const server: Server = provider.listen(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  if ((server.address() as AddressInfo).port !== port) throw new Error(`the OpenID provider did not bind ${port}`);
  return { seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
