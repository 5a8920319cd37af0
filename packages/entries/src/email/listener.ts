/**
 * Inbound email (SMTP, RFC 5321, through the maintained `smtp-server`): each accepted message starts
 * a run of the mesh its recipient is mapped to, with the raw message (an `.eml`) as the input, so a
 * mesh whose head has an `email` step splits it into its attachments (the claims example).
 *
 * Admin policy decides, never the sender: `smtp.allowedSenders` (addresses or `@domain`s; empty
 * refuses everyone), `smtp.routes` (recipient → mesh) and `smtp.maxBytes` (announced as SIZE, RFC
 * 1870). A refusal is a 5xx reply naming the policy; a message is accepted (250, naming the run) only
 * after its run row is committed, and a failure to commit is a 451 so the sender tries again: an
 * accepted message is never lost. The envelope sender is what is checked; put the listener behind
 * the MTA that verifies SPF/DKIM, or on a private address, since SMTP senders can be forged.
 */
import { createHash } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Engine } from '@trellis/engine/engine';
import { EngineError } from '@trellis/engine/errors';
import type { Logger } from '@trellis/engine/log';
import type { EntriesConfig } from '../config';
import { entryError, startBridgeRun } from '../entry-run';

type SmtpConfig = NonNullable<EntriesConfig['smtp']>;

/** An SMTP reply error: `responseCode` is the reply code smtp-server sends. */
function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

/** True when `address` is allowed by the policy list (exact address or `@domain`, case-insensitive). */
export function senderAllowed(allowed: readonly string[], address: string): boolean {
  const a = address.trim().toLowerCase();
  const domain = a.slice(a.lastIndexOf('@'));
  return allowed.some((entry) => {
    const e = entry.trim().toLowerCase();
    return e.startsWith('@') ? e === domain : e === a;
  });
}

/** The mesh mapped to a recipient, or undefined. */
function routeOf(config: SmtpConfig, address: string): string | undefined {
  const a = address.trim().toLowerCase();
  return config.routes.find((r) => r.to.trim().toLowerCase() === a)?.mesh;
}

async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The message's own id (Message-ID header), so a sender's retry of the same message reuses its run. */
function messageKey(raw: Buffer): string {
  const head = raw.subarray(0, Math.min(raw.length, 64 * 1024)).toString('latin1');
  const id = /^message-id:\s*(<[^>\r\n]{1,300}>)/im.exec(head)?.[1];
  return id ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

/** A running listener. */
export interface MailListener {
  /** The port it listens on (the one given, or the one the system picked for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Listens for mail on `config.host:config.port`.
 * @throws the listen error (a port in use) before resolving.
 */
export async function startMailListener(engine: Engine, config: SmtpConfig, log: Logger): Promise<MailListener> {
  const server = new SMTPServer({
    name: 'trellis',
    banner: 'Trellis inbound mail',
    size: config.maxBytes,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onMailFrom(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (!senderAllowed(config.allowedSenders, address.address)) {
        return callback(smtpError(550, `5.7.1 sender ${address.address} is refused by the allowed-senders policy (smtp.allowedSenders)`));
      }
      const args = address.args || {};
      const declared = Number(args.SIZE ?? 0);
      if (declared > config.maxBytes) return callback(smtpError(552, `5.3.4 the message (${declared} bytes) is larger than the size limit of ${config.maxBytes} bytes (smtp.maxBytes)`));
      return callback();
    },
    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (!routeOf(config, address.address)) return callback(smtpError(550, `5.1.1 no mesh is mapped to ${address.address} (smtp.routes)`));
      return callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
      void (async () => {
        const raw = await readAll(stream);
        if (stream.sizeExceeded) throw smtpError(552, `5.3.4 the message is larger than the size limit of ${config.maxBytes} bytes (smtp.maxBytes)`);
        const key = messageKey(raw);
        const started: string[] = [];
        for (const rcpt of session.envelope.rcptTo) {
          const mesh = routeOf(config, rcpt.address);
          if (!mesh) continue;
          try {
            const run = await startBridgeRun(engine, { meshName: mesh, input: { bytes: raw, name: 'message.eml' }, idempotencyKey: `email:${mesh}:${key}`, entry: 'email', actor: null, via: rcpt.address });
            started.push(run.runId);
          } catch (err) {
            const { status, body } = entryError(err);
            if (err instanceof EngineError && status < 500) throw smtpError(554, `5.6.0 ${body.error.code}: ${body.error.message}`);
            log.warn(`inbound mail for ${rcpt.address}: the run could not be started (${body.error.message})`);
            throw smtpError(451, `4.3.0 ${body.error.code}: ${body.error.message}; try again later`);
          }
        }
        return `2.0.0 accepted as run ${started.join(', ')}`;
      })().then(
        (message) => callback(null, message),
        (err: unknown) => callback(err instanceof Error ? err : smtpError(451, '4.3.0 try again later')),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err: Error) => log.warn(`inbound mail: ${err.message}`));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
