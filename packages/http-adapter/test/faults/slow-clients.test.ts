/**
 * Slow and stalled clients: a purchase whose body arrives after the request timer answered 503 is not
 * stored (the 503 tells the truth); a purchase whose commit outlasts the timer is answered with its
 * true result; a client that stalls mid-request is cut by the server's request timeout; the process
 * keeps serving throughout.
 */
import net from 'node:net';
import type { Engine } from '@aisle/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AisleServer } from '../../src/index.js';
import { ADMIN_TOKEN, SITE_A, TOKEN_A } from '../helpers.js';
import { orderCount, purchaseBody, sendPurchase } from './fault-env.js';

const HANDLER_TIMEOUT_MS = 200;
let server: AisleServer;
/** Extra time each recordPurchases takes before committing (set by a test). */
let commitDelayMs = 0;

beforeAll(async () => {
  const { createEngine } = await import('@aisle/engine');
  const engine = await createEngine({ workers: 0, websites: [SITE_A], adminTokens: [ADMIN_TOKEN] });
  const slowed = new Proxy(engine, {
    get(target, prop) {
      if (prop === 'recordPurchases') {
        return async (websiteId: string, body: Parameters<typeof target.recordPurchases>[1]) => {
          await new Promise((resolve) => setTimeout(resolve, commitDelayMs));
          return target.recordPurchases(websiteId, body);
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Engine;
  server = await createServer({
    engine: slowed, adminTokens: [ADMIN_TOKEN], port: 0, host: '127.0.0.1', logger: false,
    limits: { handlerTimeoutMs: HANDLER_TIMEOUT_MS }, headersTimeoutMs: 500, requestTimeoutMs: 1000,
  });
});
afterAll(() => server.close());

/** Sends a purchase over a raw socket: the headers and half the body, a pause, then the rest. */
function slowPurchase(url: string, orderId: string, pauseMs: number): Promise<string> {
  const { port } = new URL(url);
  const body = JSON.stringify(purchaseBody(orderId));
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => { answer += d.toString(); });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(`POST /3.0/events/purchases HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN_A}\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 40)}`);
    setTimeout(() => socket.write(body.slice(40)), pauseMs);
  });
}

describe('slow and stalled clients', () => {
  it('answers 503 to a body slower than the timer, and then does not store it', async () => {
    const before = await orderCount(server.url);
    const answer = await slowPurchase(server.url, 'slow-body-1', HANDLER_TIMEOUT_MS * 3);
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toContain('did not complete');
    // The body has fully arrived by now; nothing of it may be recorded.
    expect(await orderCount(server.url)).toBe(before);
    // The same order sent normally is new: recorded with this request's transactionId.
    expect((await sendPurchase(server.url, 'slow-body-1')).status).toBe(202);
    expect(await orderCount(server.url)).toBe(before + 1);
  });

  it('answers a commit that outlasts the timer with its true result', async () => {
    commitDelayMs = HANDLER_TIMEOUT_MS * 3;
    try {
      const sent = await sendPurchase(server.url, 'slow-commit-1');
      expect(sent.status).toBe(202);
    } finally {
      commitDelayMs = 0;
    }
    const again = await sendPurchase(server.url, 'slow-commit-1');
    expect(again.status).toBe(202);
  });

  it('cuts a client that stalls mid-request, and keeps serving', async () => {
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => { text += d.toString(); });
      socket.on('error', () => resolve(text));
      socket.on('close', () => resolve(text));
      // Headers complete, body promised but never sent.
      socket.write(`POST /3.0/events/purchases HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN_A}\r\nContent-Length: 500\r\n\r\n{"customerId":`);
    });
    // Either the request timer (503, nothing stored) or Node's request timeout (408) answers; the
    // connection is closed either way.
    expect(answer).toMatch(/^HTTP\/1\.1 (503|408) /);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
