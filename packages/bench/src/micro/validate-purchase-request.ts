/** `validatePurchaseRequest` / `validateViewRequest` / `validateClickRequest` (events): validating wire bodies. @module */
import { generateInteractions } from '@aisle/engine/demo';
import { validateClickRequest, validatePurchaseRequest, validateViewRequest } from '@aisle/engine/internal';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'validatePurchaseRequest, validateViewRequest, validateClickRequest';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const { views, purchases } = generateInteractions({ products: ctx.products.slice(0, 5000), sessions: 400, seed: 3 });
  const purchase = purchases.find((p) => p.events[0]!.products.length >= 2) ?? purchases[0]!;
  const view = views[0]!;
  const list = { websiteId: 'bench', queryId: 'q1', kind: 'search' as const, source: 'shoes', customerId: null, sessionId: null, variant: null, firstPosition: 1, refIds: [view.events[0]!.refId], createdAt: 0 };
  const lists = new Map([['q1', list]]);
  const click = { customerId: view.customerId, sessionId: view.sessionId, events: [{ eventTime: view.events[0]!.eventTime, refId: view.events[0]!.refId, type: 'click', queryId: 'q1', position: 1 }] };
  const invalid = { customerId: 'not-a-guid', sessionId: '', events: [{ orderId: '', products: [{ refId: '', quantity: -1 }] }] };
  return [
    { name: 'a valid purchase (one order, 2+ products)', measures: 'validatePurchaseRequest', fn: () => consume(validatePurchaseRequest(purchase)) },
    { name: 'an invalid purchase (problem details built)', measures: 'validatePurchaseRequest', fn: () => { try { validatePurchaseRequest(invalid); } catch (err) { consume(err); } } },
    { name: 'a valid views body (one session)', measures: 'validateViewRequest', fn: () => consume(validateViewRequest(view)) },
    { name: 'a valid clicks body (one click on a result list)', measures: 'validateClickRequest', fn: () => consume(validateClickRequest(click, lists)) },
  ];
}
