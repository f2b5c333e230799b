/**
 * The query decoder of the recommendation methods (`queryDecoderFor('RecommendQuery')`, compiled from
 * the contract's schema): what the adapter runs on every recommendation GET before the engine call.
 * @module
 */
import { queryDecoderFor } from '@aisle/http-adapter';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'queryDecoderFor';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const decode = queryDecoderFor('RecommendQuery');
  const [a, b, c] = ctx.products.map((p) => encodeURIComponent(p.refId));
  const productPage = `customerId=c-0123456789&productRef=${a}&filterOutOfStock=true&count=10`;
  const cart = `customerId=c-0123456789&items%5B0%5D=${b}&items%5B1%5D=${c}&items%5B2%5D=${a}&filterOutOfStock=1`;
  return [
    { name: 'product page: customerId, productRef, filterOutOfStock, count', fn: () => consume(decode(productPage, 100)) },
    { name: 'cart: customerId, three items[n], filterOutOfStock', fn: () => consume(decode(cart, 100)) },
  ];
}
