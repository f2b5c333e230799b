import { describe, expect, it } from 'vitest';
import { excludedPhrases, hasPersonalData, isExcluded } from './suggestion-filters.js';

describe('suggestion filters', () => {
  it('finds e-mail addresses, URLs, phone numbers and runs of six digits in the typed text', () => {
    for (const typed of [
      'john.doe@example.com', 'mail me at a@b.co', 'https://evil.example/x', 'www.spam.net', 'cheap-pills.com now',
      '+45 12 34 56 78', '(555) 123-4567', 'order 1234567', 'card 123456',
    ]) expect(hasPersonalData(typed), typed).toBe(true);
  });

  it('finds them written in other digits and full-width forms, which the search reads as the same words', () => {
    // Full-width digits (a Japanese or Chinese keyboard) were offered back as "blue jacket 1234567": `\d` is
    // ASCII only, and the query's normalisation folds them to ASCII digits after the check.
    for (const typed of [
      'blue jacket １２３４５６７', 'tel ０１２３ ４５６ ７８９', '+４４ ２０ ７９４６ ０９５８', 'order ٠١٢٣٤٥٦٧', 'id ०१२३४५६',
      'mail ｊｏｈｎ＠ｅｘａｍｐｌｅ．ｃｏｍ', 'ｗｗｗ．ｓｐａｍ．ｎｅｔ', 'ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ／ｘ',
    ]) expect(hasPersonalData(typed), typed).toBe(true);
    for (const typed of ['ｔｖ ５５ ｉｎｃｈ', 'ｉｐｈｏｎｅ １５']) expect(hasPersonalData(typed), typed).toBe(false);
  });

  it('lets ordinary queries through, numbers of products included', () => {
    for (const typed of ['red shoe', 'iphone 15 pro', 'tv 55 inch', '4k 120hz monitor', 'size 10.5', 'nike air max 90', 'a4 paper 500', 'ssd 2 tb']) {
      expect(hasPersonalData(typed), typed).toBe(false);
    }
  });

  it('excludes words and phrases case-insensitively, on whole words only', () => {
    const phrases = excludedPhrases(['Cheap', 'knock off', '  ']);
    expect(isExcluded('cheap sofa', phrases)).toBe(true);
    expect(isExcluded('sofa knock off', phrases)).toBe(true);
    expect(isExcluded('cheaper sofa', phrases)).toBe(false);
    expect(isExcluded('knock sofa off', phrases)).toBe(false);
    expect(isExcluded('anything', [])).toBe(false);
  });
});
