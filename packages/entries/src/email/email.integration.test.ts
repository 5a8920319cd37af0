import { describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { getRun } from '@trellis/engine/runs/get-run';
import { waitForAnswer } from '@trellis/engine/runs/wait-answer';
import { silentLogger } from '@trellis/engine/log';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../../engine/test/harness';
import { parseEntriesConfig } from '../config';
import { senderAllowed, startMailListener } from './listener';

describe('inbound email', () => {
  const worlds = useWorlds();

  it('starts the mapped mesh on each accepted message and refuses by policy, naming it', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    const smtp = parseEntriesConfig({
      smtp: {
        port: 0,
        maxBytes: 4096,
        allowedSenders: ['claims@partner.test', '@insurer.test'],
        routes: [
          { to: 'words@trellis.test', mesh: 'word-split' },
          { to: 'gone@trellis.test', mesh: 'no-such-mesh' },
        ],
      },
    }).smtp;
    if (!smtp) throw new Error('no smtp config');
    const listener = await startMailListener(world.engine, smtp, silentLogger);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: listener.port, secure: false, ignoreTLS: true });
    const send = (from: string, to: string, text: string) => transport.sendMail({ from, to, subject: 'Claim 42', text, messageId: `<${Math.random().toString(36).slice(2)}@partner.test>` });
    try {
      const info = await send('claims@partner.test', 'words@trellis.test', 'the claim form is attached');
      const runId = /accepted as run (\S+)/.exec(info.response)?.[1];
      expect(runId).toBeDefined();
      const answer = await waitForAnswer(world.engine.db, runId ?? '', { timeoutMs: 30_000 });
      expect(answer).toMatchObject({ status: 'done', meshId });
      expect((answer.output as { text: string }).text).toContain('Subject: Claim 42');
      expect((answer.output as { text: string }).text).toContain('the claim form is attached');
      expect(await getRun(world.engine.db, runId ?? '')).toMatchObject({ inputName: 'message.eml' });
      // A domain on the list is allowed too.
      expect((await send('clerk@insurer.test', 'words@trellis.test', 'second')).response).toMatch(/accepted as run/);

      await expect(send('someone@elsewhere.test', 'words@trellis.test', 'x')).rejects.toMatchObject({
        responseCode: 550,
        response: expect.stringContaining('sender someone@elsewhere.test is refused by the allowed-senders policy (smtp.allowedSenders)') as unknown,
      });
      await expect(send('claims@partner.test', 'nobody@trellis.test', 'x')).rejects.toMatchObject({
        responseCode: 550,
        response: expect.stringContaining('no mesh is mapped to nobody@trellis.test (smtp.routes)') as unknown,
      });
      await expect(send('claims@partner.test', 'words@trellis.test', 'x'.repeat(8000))).rejects.toMatchObject({
        responseCode: 552,
        response: expect.stringContaining('size limit of 4096 bytes (smtp.maxBytes)') as unknown,
      });
      // The engine's refusal, in the shared shape `code: message`.
      await expect(send('claims@partner.test', 'gone@trellis.test', 'x')).rejects.toMatchObject({
        responseCode: 554,
        response: expect.stringContaining('mesh_not_found: ') as unknown,
      });
    } finally {
      transport.close();
      await listener.close();
      await runtime.close();
    }
  }, 90_000);

  it('matches allowed senders by exact address or @domain, case-insensitively', () => {
    expect(senderAllowed(['A@B.test'], 'a@b.test')).toBe(true);
    expect(senderAllowed(['@b.test'], 'x@B.TEST')).toBe(true);
    expect(senderAllowed(['@b.test'], 'x@sub.b.test')).toBe(false);
    expect(senderAllowed(['a@b.test'], 'a@b.test.evil')).toBe(false);
    expect(senderAllowed([], 'a@b.test')).toBe(false);
  });
});
