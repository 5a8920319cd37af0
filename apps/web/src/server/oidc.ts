/**
 * Single sign-on through next-auth v4's OAuth provider in its OpenID Connect form: discovery from
 * the issuer's `/.well-known/openid-configuration`, the authorization code flow with PKCE (S256)
 * and state, the ID token checked by openid-client. The claims it carries go to the engine's
 * `signInWithOidc`, which finds, links or creates the user and maps the role (TRELLIS_OIDC_*).
 */
import type { OAuthConfig } from 'next-auth/providers/oauth';
import type { TokenSet } from 'openid-client';
import { parseRoleMap, type OidcPolicy } from '@trellis/engine/users/sign-in-oidc';
import type { WebEnv } from '../env';

/** The provider id next-auth routes by (`/api/auth/signin/oidc`, `/api/auth/callback/oidc`). */
export const OIDC_PROVIDER_ID = 'oidc';

/** What the provider hands the sign-in callback: the user next-auth knows plus every claim. */
export interface OidcProfileUser {
  id: string;
  email: string | null;
  name: string | null;
  claims: Record<string, unknown>;
}

/** The configured provider, or null when TRELLIS_OIDC_ISSUER is unset. @throws Error naming a missing setting. */
export function oidcSettings(env: WebEnv): { issuer: string; name: string; provider: OAuthConfig<Record<string, unknown>>; policy: OidcPolicy } | null {
  if (!env.TRELLIS_OIDC_ISSUER) return null;
  if (!env.TRELLIS_OIDC_CLIENT_ID) throw new Error('TRELLIS_OIDC_CLIENT_ID is not set: single sign-on needs the client id registered with the provider');
  if (!env.TRELLIS_OIDC_CLIENT_SECRET) throw new Error('TRELLIS_OIDC_CLIENT_SECRET is not set: single sign-on needs the client secret registered with the provider');
  const issuer = env.TRELLIS_OIDC_ISSUER.replace(/\/+$/, '');
  const policy: OidcPolicy = {
    roleClaim: env.TRELLIS_OIDC_ROLE_CLAIM,
    roles: parseRoleMap(env.TRELLIS_OIDC_ROLES),
    defaultRole: env.TRELLIS_OIDC_DEFAULT_ROLE === 'none' ? null : env.TRELLIS_OIDC_DEFAULT_ROLE,
    createUsers: env.TRELLIS_OIDC_NEW_USERS === 'create',
  };
  const provider: OAuthConfig<Record<string, unknown>> = {
    id: OIDC_PROVIDER_ID,
    name: env.TRELLIS_OIDC_NAME,
    type: 'oauth',
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    clientId: env.TRELLIS_OIDC_CLIENT_ID,
    clientSecret: env.TRELLIS_OIDC_CLIENT_SECRET,
    authorization: { params: { scope: env.TRELLIS_OIDC_SCOPE } },
    checks: ['pkce', 'state'],
    // The ID token is checked (openid-client's OIDC callback: signature, issuer, audience, expiry);
    // the profile is its claims merged with the userinfo answer, as providers put groups in either.
    idToken: true,
    userinfo: {
      async request({ client, tokens }) {
        // At run time `tokens` is openid-client's TokenSet; passing it (not the bare access token)
        // makes userinfo refuse an answer about another subject than the ID token's.
        const set = tokens as unknown as TokenSet;
        const info = set.access_token ? await client.userinfo(set) : {};
        return { ...set.claims(), ...info };
      },
    },
    profile(profile): OidcProfileUser {
      const str = (v: unknown) => (typeof v === 'string' ? v : null);
      return { id: str(profile.sub) ?? '', email: str(profile.email), name: str(profile.name) ?? str(profile.email), claims: profile };
    },
  };
  return { issuer, name: env.TRELLIS_OIDC_NAME, provider, policy };
}
