/** POST /api/v1/approvals/{id}/decision — approve or reject a parked output (operators and admins). */
import { z } from 'zod';
import { decideApproval } from '@trellis/engine/approvals/decide';
import { idSchema } from '../schemas';
import { defineRoute } from './contract';

export const decideApprovalRoute = defineRoute({
  method: 'post',
  path: '/api/v1/approvals/{id}/decision',
  summary: 'Approve or reject a parked output; a rejection needs a comment and fails the run with `input_rejected`.',
  auth: 'operate',
  params: z.object({ id: idSchema(200).meta({ description: 'Approval id (the parked message id).' }) }),
  body: { kind: 'json', required: true, schema: z.object({ decision: z.enum(['approve', 'reject']), comment: z.string().max(2000).optional() }) },
  response: {
    status: 200,
    description: 'Decided.',
    schema: z.object({ approvalId: z.string(), runId: z.string(), status: z.enum(['approved', 'rejected']), published: z.number().int() }),
  },
  errors: {
    400: 'A malformed decision.',
    401: 'No valid token or session.',
    403: 'Refused by the role policy (operator or admin; token scope "operate").',
    404: 'No such approval.',
    409: 'Already decided, the run has ended, or a rejection without a comment.',
  },
  async handle({ engine, user, params, body }) {
    return decideApproval(await engine(), { approvalId: params.id, decision: body.decision, comment: body.comment, userId: user.id });
  },
});
