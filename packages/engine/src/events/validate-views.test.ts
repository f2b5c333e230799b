import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { MAX_VIEWS_PER_REQUEST, validateViewRequest } from './validate-views.js';
import { REC, viewBody } from './__tests__/fixtures.js';

function errorsOf(body: unknown): Record<string, string[]> {
  try {
    validateViewRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).problem.errors;
  }
  throw new Error('expected a ValidationError');
}

describe('validateViewRequest', () => {
  it('accepts the views body with optional attribution ids', () => {
    const body = viewBody(['a', 'b']);
    (body.events as Record<string, unknown>[])[0]!.recommenderId = REC;
    (body.events as Record<string, unknown>[])[0]!.referralUrl = 'https://shop.example/';
    const r = validateViewRequest(body);
    expect(r.events).toHaveLength(2);
    expect(r.events[0]).toMatchObject({ refId: 'a', recommenderId: REC, referralUrl: 'https://shop.example/', eventTimeMs: Date.UTC(2024, 4, 1, 12) });
  });

  it('names every missing and mistyped field', () => {
    expect(errorsOf({ events: [{}, { refId: 3, eventTime: 'x', currentUrl: 'u', clickId: 'no', tacticId: 'no' }] })).toEqual({
      customerId: ['The CustomerId field is required.'], sessionId: ['The SessionId field is required.'],
      'events[0].CurrentUrl': ['The CurrentUrl field is required.'], 'events[0].EventTime': ['The EventTime field is required.'],
      'events[0].RefId': ['The RefId field is required.'],
      'events[1].EventTime': [expect.stringMatching(/ISO 8601/)], 'events[1].RefId': ['The RefId field must be a string.'],
      'events[1].TacticId': [expect.stringMatching(/GUID/)], 'events[1].ClickId': [expect.stringMatching(/GUID/)],
    });
  });

  it('reads PascalCase names, counts null as absent, lower-cases GUIDs and reports paths as sent', () => {
    const body = viewBody(['a']);
    const e = (body.events as Record<string, unknown>[])[0]!;
    const r = validateViewRequest({
      CustomerId: (body.customerId as string).toUpperCase(), sessionId: null, SessionId: body.sessionId,
      Events: [{ ...e, refId: null, RefId: 'b', ClickId: REC.toUpperCase() }],
    });
    expect(r).toMatchObject({ customerId: body.customerId, sessionId: body.sessionId, events: [{ refId: 'b', clickId: REC }] });
    expect(errorsOf({ CustomerId: 'x', sessionId: body.sessionId, Events: [{ currentUrl: e.currentUrl, eventTime: e.eventTime, RefId: ' ' }, 7] })).toEqual({
      CustomerId: [expect.stringMatching(/^The CustomerId field must be a GUID/)],
      'Events[0].RefId': ['The RefId field must not be blank.'], 'Events[1]': ['The Events entry must be an object.'],
    });
  });

  it('limits the number of views per request', () => {
    expect(Object.keys(errorsOf(viewBody(Array.from({ length: MAX_VIEWS_PER_REQUEST + 1 }, (_, i) => `r${i}`))))).toEqual(['events']);
    expect(errorsOf('x')).toEqual({ $: ['The request body must be a JSON object.'] });
  });
});
