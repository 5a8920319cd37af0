import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MEMBER_KINDS, MemberSchema, type Member } from '@trellis/mesh/schema';
import { newMember } from '../members';
import { nodeTypes } from '../node-types';
import { MemberPanel } from '../panels/member-panel';
import { KIND_UI } from './kind-ui';

const panel = (member: Member) =>
  renderToStaticMarkup(createElement(MemberPanel, { member, takenIds: new Set([member.id]), meshNames: ['other'], onChange: () => undefined, onRemove: () => undefined }));

describe('member kinds on the canvas', () => {
  it.each(MEMBER_KINDS)('%s: a new member is valid, its node is registered, its panel shows its own fields', (kind) => {
    const member = newMember(kind, new Set([`${kind}-1`]), 'other');
    expect(member.id).toBe(`${kind}-2`);
    expect(MemberSchema.parse(member)).toEqual(member);
    expect(nodeTypes[kind]).toBe(KIND_UI[kind].node);
    const html = panel(member);
    expect(html).toContain(`${KIND_UI[kind].style.label} settings`);
    expect(html.includes('data-testid="member-pool"')).toBe(kind !== 'combine');
  });

  it('each panel shows only its kind’s settings', () => {
    const own: Record<(typeof MEMBER_KINDS)[number], string> = {
      agent: 'member-model',
      workflow: 'member-steps',
      mesh: 'member-mesh',
      service: 'member-service',
      combine: 'member-merge',
    };
    for (const kind of MEMBER_KINDS) {
      const html = panel(newMember(kind, new Set(), 'other'));
      for (const [other, testId] of Object.entries(own)) expect(html.includes(`data-testid="${testId}"`), `${kind} panel, ${other} field`).toBe(other === kind);
    }
  });
});
