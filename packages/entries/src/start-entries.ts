/**
 * Starts every entry the admin's configuration names, on one engine: the HTTP bridges (MCP at
 * `/mcp`, A2A agents under `/a2a/<mesh>`), the event-mesh subscriptions and the inbound mail
 * listener. A section that is absent is not started.
 */
import type { Engine } from '@trellis/engine/engine';
import type { Logger } from '@trellis/engine/log';
import type { EntriesConfig } from './config';
import type { CrashPoint } from './events/binding';
import { startEventSubscriptions, type EventSubscriptions } from './events/nats';
import { startMailListener, type MailListener } from './email/listener';
import { bridgeHandler } from './http/routes';
import { serveFetch } from './http/node-adapter';

/** Running entries and the ports they got (0 in the config picks a free one). */
export interface RunningEntries {
  httpPort?: number;
  smtpPort?: number;
  events?: EventSubscriptions;
  mail?: MailListener;
  close(): Promise<void>;
}

/** Largest HTTP request body the bridges read (bytes): the engine's input limit is checked after. */
export const MAX_HTTP_BODY_BYTES = 16 * 1024 * 1024;

/** @throws the first start-up error (a port in use, NATS unreachable, a missing stream), after closing what had started. */
export async function startEntries(engine: Engine, config: EntriesConfig, log: Logger, options: { crash?: CrashPoint } = {}): Promise<RunningEntries> {
  const closers: (() => Promise<void>)[] = [];
  const running: RunningEntries = {
    async close() {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    },
  };
  try {
    if (config.http) {
      const http = config.http;
      const { server, port } = await serveFetch(
        bridgeHandler(engine, { waitMs: http.waitSeconds * 1000, publicUrl: (req) => http.publicUrl ?? new URL(req.url).origin }),
        { host: http.host, port: http.port, maxBodyBytes: MAX_HTTP_BODY_BYTES },
      );
      running.httpPort = port;
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    }
    if (config.nats && config.nats.bindings.length > 0) {
      const events = await startEventSubscriptions(engine, config.nats, log, options);
      running.events = events;
      closers.push(() => events.close());
    }
    if (config.smtp) {
      const mail = await startMailListener(engine, config.smtp, log);
      running.mail = mail;
      running.smtpPort = mail.port;
      closers.push(() => mail.close());
    }
  } catch (err) {
    await running.close();
    throw err;
  }
  return running;
}
