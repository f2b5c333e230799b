import { AisleError, ErrorCodes, messageOf, ValidationError, type ErrorCode } from '@aisle/engine';
import { describe, expect, it } from 'vitest';
import { HttpError, problemFor, problemPath, STATUS_BY_CODE, toWireError } from '../src/errors.js';

describe('engine error codes → HTTP statuses (one table)', () => {
  it('maps every engine code, to the status the engine declares', () => {
    for (const code of Object.keys(ErrorCodes) as ErrorCode[]) {
      expect(STATUS_BY_CODE[code], code).toBe(ErrorCodes[code].status);
      expect(toWireError(new AisleError(code, 'm')).status).toBe(ErrorCodes[code].status);
    }
  });

  it('keeps the problem details of a ValidationError, hides the message of unexpected errors', () => {
    const problem = problemFor(400, 'events[0].products[0].refId', 'The RefId field is required.', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(problem.errors).toEqual({ 'events[0].Products[0].RefId': ['The RefId field is required.'] });
    expect(toWireError(new ValidationError(problem)).problem).toBe(problem);
    expect(toWireError(new Error('secret detail'))).toMatchObject({ status: 500, message: 'internal error', internal: true });
    expect(toWireError(new HttpError('MEDIA_TYPE_UNSUPPORTED', { accepted: 'application/json', got: '' }, { key: 'k' })))
      .toMatchObject({ status: 415, key: 'k', message: 'Content-Type must be application/json', internal: false });
  });

  it('words the adapter\'s errors by their templates, with the code\'s status and the headers they carry', () => {
    const err = new HttpError('METHOD_NOT_ALLOWED', { method: 'PUT', route: '/healthz', allow: 'GET, HEAD, OPTIONS' }, { headers: { allow: 'GET, HEAD, OPTIONS' } });
    expect(err).toBeInstanceOf(AisleError);
    expect(toWireError(err)).toEqual({
      status: 405, key: '$', message: 'method PUT is not allowed on /healthz; allowed: GET, HEAD, OPTIONS',
      headers: { allow: 'GET, HEAD, OPTIONS' }, problem: undefined, internal: false,
    });
    expect(messageOf('QUERY_PARAM_NOT_INTEGER', { name: 'count', min: 1, max: 100, value: 'abc' }))
      .toBe('query parameter count must be an integer from 1 to 100 (got "abc")');
  });

  it('gives every templated code a template whose placeholders are plain names', () => {
    for (const [code, entry] of Object.entries(ErrorCodes)) {
      if (!('message' in entry)) continue;
      expect(entry.message.replace(/\{\w+\}/g, ''), code).not.toMatch(/[{}]/);
    }
  });

  it('writes problem paths with deeper properties in PascalCase', () => {
    expect(problemPath('$')).toBe('$');
    expect(problemPath('mode')).toBe('mode');
    expect(problemPath('coupons[0].code')).toBe('coupons[0].Code');
  });
});
