import { expect, test } from '@playwright/test';
import { checksSettled, connect } from '../support/canvas';
import { signIn } from '../support/session';

// Click-to-add names members `<kind>-<n>`; the first one added is the head.
const FLOW = 'workflow-1';
const AGENT = 'agent-1';

test('code and HTTP steps and an agent output schema are edited on the canvas, with bad settings named', async ({ page }) => {
  const name = `steps-${Date.now().toString(36)}`;
  const findings = page.getByTestId('findings-panel');

  await test.step('create a mesh with a workflow head and an agent', async () => {
    await signIn(page);
    await page.getByTestId('mesh-new').click();
    await page.getByTestId('mesh-new-name').fill(name);
    await page.getByTestId('mesh-new-create').click();
    await expect(page).toHaveURL(/\/meshes\/[^/]+$/);
    await page.getByTestId('palette-workflow').click();
    await page.getByTestId('palette-agent').click();
    await page.getByTestId(`node-${FLOW}`).click();
    await page.getByTestId('member-head').check();
    await connect(page, FLOW, AGENT);
    await expect(findings.getByTestId('findings-none')).toBeVisible();
  });

  await test.step('turn the first step into sandboxed JavaScript with limits', async () => {
    await page.getByTestId(`node-${FLOW}`).click();
    await page.getByTestId('step-0-type').selectOption('code');
    await page.getByTestId('step-0-source').fill('return { ...payload, checked: true };');
    await page.getByTestId('step-0-timeout').fill('2000');
    await page.getByTestId('step-0-memory').fill('32');
    await page.getByTestId('member-pool').fill('agents');
    await checksSettled(page);
    await expect(findings.getByTestId('findings-none')).toBeVisible();
  });

  await test.step('an HTTP step calling a host not on its list is a finding naming the member and field', async () => {
    await page.getByTestId('step-add').click();
    await page.getByTestId('step-1-type').selectOption('http');
    await page.getByTestId('step-1-url').fill('https://crm.example.net/claims/{claim_id}');
    const bad = findings.getByTestId('finding-member_config_invalid');
    await expect(bad).toHaveAttribute('data-member', FLOW);
    await expect(bad).toHaveAttribute('data-field', 'steps[1].url');
    await expect(bad).toContainText('crm.example.net');
    await page.getByTestId('step-1-hosts').fill('crm.example.net');
    await expect(bad).toHaveCount(0);
  });

  await test.step('the agent output schema shows a parse error in place and a bad schema as a finding', async () => {
    await page.getByTestId(`node-${AGENT}`).click();
    const schema = page.getByTestId('member-schema');
    await schema.fill('{"type": "object", "properties": {');
    await expect(page.getByTestId('member-schema-error')).toContainText('not JSON');
    await schema.fill('{"type": "object", "properties": {"kind": {"type": "strng"}}}');
    await expect(page.getByTestId('member-schema-error')).toContainText('strng');
    const bad = findings.getByTestId('finding-member_config_invalid');
    await expect(bad).toHaveAttribute('data-member', AGENT);
    await expect(bad).toHaveAttribute('data-field', 'outputSchema');
    await schema.fill('{"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]}');
    await expect(page.getByTestId('member-schema-error')).toHaveCount(0);
    await expect(findings.getByTestId('findings-none')).toBeVisible();
    await page.getByTestId('member-provider-url').fill('http://127.0.0.1:9/v1');
    await page.getByTestId('member-provider-key').fill('CLAIMS_LLM_KEY');
    await page.getByTestId('member-tools').fill('files, crm');
  });

  await test.step('save, reload, and the settings are back', async () => {
    await page.getByTestId('mesh-save').click();
    await expect(page.getByTestId('mesh-version')).toHaveText('v2');
    await page.reload();
    await page.getByTestId(`node-${AGENT}`).click();
    await expect(page.getByTestId('member-provider-key')).toHaveValue('CLAIMS_LLM_KEY');
    await expect(page.getByTestId('member-tools')).toHaveValue('files, crm');
    await expect(page.getByTestId('member-schema')).toHaveValue(/"required": \[\s*"kind"\s*\]/);
    await page.getByTestId(`node-${FLOW}`).click();
    await expect(page.getByTestId('step-0-source')).toHaveValue('return { ...payload, checked: true };');
    await expect(page.getByTestId('step-1-hosts')).toHaveValue('crm.example.net');
    await expect(page.getByTestId('member-pool')).toHaveValue('agents');
  });
});
