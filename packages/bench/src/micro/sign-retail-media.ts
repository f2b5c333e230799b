/** `signRetailMedia` / `verifyRetailMedia` (retail-media/hmac): one slot's HMAC. @module */
import { signRetailMedia, verifyRetailMedia } from '@aisle/engine';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'signRetailMedia, verifyRetailMedia';

export async function cases(_ctx: MicroContext): Promise<MicroCase[]> {
  const fields = {
    adSetId: '3F2504E0-4F89-11D3-9A0C-0305E82C3301', hmacSalt: 'AbCdEfGhIjKlMnOp',
    costPerClick: 0.35, costPerMille: 4.5, timeStamp: '2026-01-01T12:00:00.000Z',
  };
  const secret = 'website-secret-0123456789';
  const hmac = signRetailMedia(fields, secret);
  return [
    { name: 'sign one slot', measures: 'signRetailMedia', fn: () => consume(signRetailMedia(fields, secret)) },
    { name: 'verify one slot (constant-time compare)', measures: 'verifyRetailMedia', fn: () => consume(verifyRetailMedia(fields, hmac, secret)) },
  ];
}
