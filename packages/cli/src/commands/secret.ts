/**
 * Admin commands for what steps may reach (docs/security.md): `trellis secret set|list|remove`
 * and `trellis connection set|list|remove` (values read from stdin, sealed, never printed),
 * `trellis secret rotate-key`, and `trellis egress allow|list|remove`. Whoever can run these
 * holds the database and the key, i.e. is an operator of the install.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { allowEgress, listEgressRules, removeEgressRule } from '@trellis/engine/policy/egress';
import { keyOf, loadSecretsKey } from '@trellis/engine/policy/secret-key';
import { deleteSecret, listSecrets, rotateSecretsKey, type SecretKind } from '@trellis/engine/policy/secrets';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';

/** All of stdin as text, without one trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function withEngine<T>(fn: (booted: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> {
  const booted = await open(settings());
  try {
    return await fn(booted);
  } finally {
    await booted.close();
  }
}

/** `secret set NAME --hosts …` / `connection set NAME`: stores the value read from stdin. */
export async function secretSetCommand(kind: SecretKind, name: string, opts: { hosts?: string }): Promise<number> {
  const value = await readStdin();
  if (value === '') throw new CliError(`the value of ${name} is read from stdin, and stdin was empty`);
  const hosts = (opts.hosts ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');
  return withEngine(async ({ engine }) => {
    try {
      const info = await engine.guard.store({ kind, name, value, hosts, by: 'cli' });
      process.stdout.write(`${kind} ${info.name} stored${info.hosts.length > 0 ? ` for ${info.hosts.join(', ')}` : ''}\n`);
    } catch (err) {
      throw new CliError(err instanceof Error ? err.message : String(err));
    }
    return EXIT.ok;
  });
}

/** `secret list` / `connection list`: names and hosts, never values. */
export async function secretListCommand(kind: SecretKind, opts: { json?: boolean }): Promise<number> {
  return withEngine(async ({ engine }) => {
    const items = await listSecrets(engine.db, kind);
    if (opts.json) process.stdout.write(`${JSON.stringify({ [`${kind}s`]: items })}\n`);
    else for (const s of items) process.stdout.write(`${s.name}${s.hosts.length > 0 ? `  hosts ${s.hosts.join(', ')}` : ''}  updated ${s.updatedAt.toISOString()} by ${s.updatedBy}\n`);
    return EXIT.ok;
  });
}

/** `secret remove NAME` / `connection remove NAME`. */
export async function secretRemoveCommand(kind: SecretKind, name: string): Promise<number> {
  return withEngine(async ({ engine }) => {
    if (!(await deleteSecret(engine.db, kind, name, 'cli'))) throw new CliError(`no ${kind} is named ${name}`);
    process.stdout.write(`${kind} ${name} removed\n`);
    return EXIT.ok;
  });
}

/**
 * `secret rotate-key`: seals every entry under a fresh key in one transaction. With a key file
 * the new key replaces it (the old one is kept as `<file>.old`); with TRELLIS_SECRETS_KEY the new
 * key is printed once, to be set in every process's environment before they restart.
 */
export async function secretRotateKeyCommand(): Promise<number> {
  const env = settings();
  const current = loadSecretsKey(env.secretsKeyText, env.secretsKeyFile);
  const next = keyOf(randomBytes(32));
  return withEngine(async ({ engine }) => {
    const n = await rotateSecretsKey(engine.db, current, next);
    if (env.secretsKeyText) {
      process.stdout.write(`${n} entries re-sealed under key ${next.id}. Set TRELLIS_SECRETS_KEY to this value in every Trellis process and restart them:\n${next.bytes.toString('base64')}\n`);
    } else {
      if (existsSync(env.secretsKeyFile)) copyFileSync(env.secretsKeyFile, `${env.secretsKeyFile}.old`);
      writeFileSync(env.secretsKeyFile, `${next.bytes.toString('base64')}\n`, { mode: 0o600 });
      process.stdout.write(`${n} entries re-sealed under key ${next.id}; ${env.secretsKeyFile} holds the new key (the old one is in ${env.secretsKeyFile}.old). Restart every Trellis process.\n`);
    }
    return EXIT.ok;
  });
}

/** `egress allow PATTERN [--internal]`. */
export async function egressAllowCommand(pattern: string, opts: { internal?: boolean }): Promise<number> {
  return withEngine(async ({ engine }) => {
    try {
      const rule = await allowEgress(engine.db, { pattern, internal: opts.internal ?? false, by: 'cli' });
      process.stdout.write(`egress to ${rule.pattern} allowed${rule.internal ? ' (internal addresses too)' : ''}\n`);
    } catch (err) {
      throw new CliError(err instanceof Error ? err.message : String(err));
    }
    return EXIT.ok;
  });
}

/** `egress list`: the admin rules and what is in force. */
export async function egressListCommand(opts: { json?: boolean }): Promise<number> {
  return withEngine(async ({ engine }) => {
    const rules = await listEgressRules(engine.db);
    const inForce = (await engine.guard.egress()).allow;
    if (opts.json) process.stdout.write(`${JSON.stringify({ rules, inForce })}\n`);
    else {
      for (const r of rules) process.stdout.write(`${r.pattern}${r.internal ? '  internal' : ''}  by ${r.createdBy}\n`);
      if (rules.length === 0) process.stdout.write(`no rules: the default TRELLIS_EGRESS_ALLOW holds (${inForce.join(', ')})\n`);
    }
    return EXIT.ok;
  });
}

/** `egress remove PATTERN`. */
export async function egressRemoveCommand(pattern: string): Promise<number> {
  return withEngine(async ({ engine }) => {
    if (!(await removeEgressRule(engine.db, pattern, 'cli'))) throw new CliError(`no egress rule is ${pattern}`);
    process.stdout.write(`egress rule ${pattern} removed\n`);
    return EXIT.ok;
  });
}
