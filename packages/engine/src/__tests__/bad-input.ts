/**
 * Input the types forbid, sent on purpose: the validation tests pass what a JavaScript caller or an HTTP
 * body can hold (a missing field, a field of the wrong type, a record without its id) to an API typed for
 * valid input. Typed as the parameter it is passed to, so every such hole in the type-checking of the
 * tests is this one call, easy to find, and the rest of each test stays checked.
 */
export function badInput<Expected>(value: unknown): Expected {
  return value as Expected;
}
