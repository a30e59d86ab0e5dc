import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../../../../src/engines/pdfa-validator/expression/errors.js';
import { compile, evaluate, truthy } from '../../../../src/engines/pdfa-validator/expression/evaluate.js';
import { LIMITS } from '../../../../src/engines/pdfa-validator/expression/limits.js';
import type { PropertyValue, Value } from '../../../../src/engines/pdfa-validator/expression/value.js';
import { scopeOf } from './scope.js';

function run(source: string, properties: Record<string, PropertyValue> = {}, variables: Record<string, Value> = {}): Value {
  return evaluate(compile(source), scopeOf(properties), new Map(Object.entries(variables)));
}

function failure(action: () => unknown): ExpressionError {
  try {
    action();
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error('expected an ExpressionError');
}

describe('expression literals', () => {
  it('reads numbers as JavaScript does', () => {
    expect(run('3.403e+38')).toBe(3.403e38);
    expect(run('1.175e-38')).toBe(1.175e-38);
    expect(run('.5 + 0x10')).toBe(16.5);
    expect(run('32767.0')).toBe(32767);
  });

  it('reads strings in both quotes with escapes', () => {
    expect(run(`'it\\'s' + "a \\"b\\""`)).toBe(`it'sa "b"`);
    expect(run('"\\u0000\\uFFFE\\x41\\n"')).toBe('\u0000\uFFFEA\n');
  });

  it('reads true, false, null and undefined', () => {
    expect(run('true')).toBe(true);
    expect(run('false')).toBe(false);
    expect(run('null')).toBe(null);
    expect(run('undefined')).toBe(undefined);
  });
});

describe('JavaScript semantics', () => {
  it('== coerces as JavaScript does; === does not', () => {
    const cases: [string, boolean][] = [
      ['null == undefined', true],
      ['null == 0', false],
      ['null == false', false],
      ['null == ""', false],
      ['"1" == 1', true],
      ['"" == 0', true],
      ['" 1 " == 1', true],
      ['true == 1', true],
      ['"true" == true', false],
      ['"RGB " == "RGB"', false],
      ['"1" === 1', false],
      ['null === undefined', false],
      ['1.0 === 1', true],
      ['"abc" != "abd"', true],
      ['0 == -0', true],
    ];
    for (const [source, expected] of cases) expect([source, run(source)]).toEqual([source, expected]);
  });

  it('compares mixed types as JavaScript does (strings lexicographically, otherwise as numbers)', () => {
    expect(run('null < 3')).toBe(true);
    expect(run('"10" < "9"')).toBe(true);
    expect(run('"10" < 9')).toBe(false);
    expect(run('undefined < 1 || undefined >= 1')).toBe(false);
    expect(run('version < 3.0', { version: 2.4 })).toBe(true);
  });

  it('+ concatenates when either side is a string, adds otherwise', () => {
    expect(run('"a" + 1 + 2')).toBe('a12');
    expect(run('1 + 2 + "a"')).toBe('3a');
    expect(run('1 + null')).toBe(1);
    expect(run('LastChar - FirstChar + 1', { LastChar: 126, FirstChar: 32 })).toBe(95);
    expect(run('"7" - 2')).toBe(5);
  });

  it("&& and || give the deciding operand; truthiness is JavaScript's", () => {
    expect(run('null || "x"')).toBe('x');
    expect(run('0 && unknown')).toBe(0);
    expect(run('"" || 0')).toBe(0);
    expect(truthy(run('"0"'))).toBe(true);
    expect(truthy(run('0 / 0'))).toBe(false);
    expect(truthy(run('"".split(",")'))).toBe(true);
  });

  it('follows JavaScript precedence and associativity', () => {
    expect(run('1 + 2 * 3 == 7')).toBe(true);
    expect(run('-2 * 3')).toBe(-6);
    expect(run('!a == false', { a: true })).toBe(true);
    expect(run('10 - 4 - 3')).toBe(3);
    expect(run('a ? 1 : b ? 2 : 3', { a: false, b: false })).toBe(3);
    expect(run('a || b ? "y" : "n"', { a: false, b: true })).toBe('y');
    expect(run('CA == null || CA - 1.0 < 0.000001 && CA - 1.0 > -0.000001', { CA: 0.5 })).toBe(false);
    expect(run('7 % 4 * 2')).toBe(6);
  });

  it('evaluates the bit operations of the annotation flag rules', () => {
    expect(run('(F & 4) >> 2', { F: 4 })).toBe(1);
    expect(run('F != null && (F & 4) == 4 && (F & 1) == 0 && (F & 2) == 0 && (F & 32) == 0', { F: 4 })).toBe(true);
    expect(run('F != null && (F & 4) == 4 && (F & 1) == 0', { F: 5 })).toBe(false);
    expect(run('~0 | 1 ^ 3 << 1 >>> 0')).toBe(-1);
  });
});

describe('builtins', () => {
  it('tests regexes, with flags, and resets a g regex between calls', () => {
    expect(run('/^%PDF-1\\.[0-7]$/.test(header)', { header: '%PDF-1.7' })).toBe(true);
    expect(run('/^%PDF-1\\.[0-7]$/.test(header)', { header: '%PDF-1.8' })).toBe(false);
    expect(run('/pdf/i.test("A PDF")')).toBe(true);
    const compiled = compile('/a/g.test(x)');
    const scope = scopeOf({ x: 'a' });
    expect([evaluate(compiled, scope), evaluate(compiled, scope), evaluate(compiled, scope)]).toEqual([true, true, true]);
    expect(run('/null/.test(x)', { x: null })).toBe(true);
  });

  it('splits, filters and prints arrays as JavaScript does', () => {
    const source = "entries.split('&').filter(elem => elem != 'UR3' && elem != 'DocMDP')";
    expect(run(`${source}.length == 0 || entries == ''`, { entries: 'UR3&DocMDP' })).toBe(true);
    expect(run(`${source}.length == 0 || entries == ''`, { entries: 'UR3&FieldMDP' })).toBe(false);
    expect(run(`${source}.toString()`, { entries: 'A&UR3&B' })).toBe('A,B');
    expect(run('"".split("&")')).toEqual(['']);
    expect(run('"a1b22c".split(/\\d+/)')).toEqual(['a', 'b', 'c']);
    expect(run('x.split(",").filter(a => x.split(",").filter(b => b == a).length > 1).length', { x: 'a,b,a' })).toBe(2);
  });

  it('has .length and the Java-style .length()', () => {
    expect(run('lastID != null && lastID.length() > 0', { lastID: 'abc' })).toBe(true);
    expect(run('lastID != null && lastID.length() > 0', { lastID: '' })).toBe(false);
    expect(run('value.length', { value: 'abcd' })).toBe(4);
    expect(run('"a,b".split(",").length()')).toBe(2);
  });

  it('searches, finds, slices and compares strings', () => {
    const subset = 'fontName.search(/[A-Z]{6}\\+/) != 0';
    expect(run(subset, { fontName: 'ABCDEF+Times' })).toBe(false);
    expect(run(subset, { fontName: 'Times' })).toBe(true);
    expect(run('toUnicode.indexOf("\\u0000") == -1', { toUnicode: 'a\u0000' })).toBe(false);
    expect(run('"Hello".substring(1, 3) + "Hello".charAt(0) + "Hi".toLowerCase()')).toBe('elHhi');
    expect(run('"abc".startsWith("ab") && "abc".endsWith("bc") && "abc".contains("b") && "abc".equals("abc") && !"abc".equals(1)')).toBe(true);
    expect(run('"a-b".match(/(\\w)-(\\w)/)')).toEqual(['a-b', 'a', 'b']);
    expect(run('"ab".match(/x/)')).toBe(null);
  });

  it('has Math.abs and its kin, coercing like JavaScript', () => {
    expect(run('Math.abs(top - bottom)', { top: 10, bottom: 20 })).toBe(10);
    expect(run('Math.abs(widthFromFontProgram - widthFromDictionary) <= 1', { widthFromFontProgram: 500.4, widthFromDictionary: 500 })).toBe(true);
    expect(run('Math.max(1, "3", null) + Math.floor(2.7)')).toBe(5);
  });
});

describe('names', () => {
  it('reads variables before properties and refuses unimplemented properties', () => {
    expect(run('gOutputCS == "RGB "', { gOutputCS: 'CMYK' }, { gOutputCS: 'RGB ' })).toBe(true);
    const error = failure(() => run('b == 2', { a: 1 }));
    expect(error.kind).toBe('unknownProperty');
    expect(error.message).toContain('property b');
    // evaluate() reads names as it goes: a short-circuit skips b. checkRule refuses before evaluating (check-rule.test.ts).
    expect(run('a == 1 || b == 2', { a: 1 })).toBe(true);
  });

  it('reads an undefined property value as null and refuses non-primitive values', () => {
    expect(run('x == null && x === null', { x: undefined })).toBe(true);
    const scope = { has: () => true, get: () => ({ valueOf: () => 1 }) as never };
    expect(failure(() => evaluate(compile('x == 1'), scope)).kind).toBe('type');
  });

  it("reads Object.prototype's names (toString, constructor) as names of the model object, never as the prototype's members", () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(compile(name).names).toEqual([name]);
      expect(failure(() => run(name, { a: 1 })).kind).toBe('unknownProperty');
      expect(run(`${name} == 2`, { [name]: 2 })).toBe(true);
    }
    expect(failure(() => compile('a toString b')).kind).toBe('syntax');
  });

  it('lists the free names and builtins of an expression, not the lambda parameters', () => {
    const compiled = compile("permsContainDocMDP == false || entries.split('&').filter(elem => elem == 'DigestLocation').length == 0");
    expect(compiled.names).toEqual(['entries', 'permsContainDocMDP']);
    expect(compiled.builtins).toEqual(['.filter()', '.length', '.split()']);
  });

  it('throws a type error where JavaScript throws a TypeError', () => {
    expect(failure(() => run('fontName.search(/a/) != 0', { fontName: null })).kind).toBe('type');
    expect(failure(() => run('x.length', { x: 5 })).kind).toBe('type');
    expect(failure(() => run('x.split(",")', { x: 5 })).kind).toBe('type');
    expect(failure(() => run('"a".search("a")')).kind).toBe('type');
    expect(failure(() => run('"a".split(",").filter(1)')).kind).toBe('type');
  });
});

describe('what does not compile', () => {
  const refused = [
    'a = 1',
    'a[0]',
    'a.constructor',
    'a.__proto__',
    '"x".constructor("return 1")',
    'x.valueOf()',
    'x.hasOwnProperty("a")',
    'new Foo()',
    'eval("1")',
    'Function("return 1")()',
    'Math.random()',
    'Math',
    'Math.PI',
    'x => x',
    'a.filter(null => 1)',
    '/a/y.test(x)',
    '/a/gg.test(x)',
    '/(/.test(x)',
    '"unterminated',
    'a ? b',
    '1 +',
    '(1',
    'a; b',
    '`template`',
    'a.b',
    '1a',
  ];
  for (const source of refused) {
    it(`refuses ${source}`, () => {
      expect(failure(() => compile(source)).kind).toBe('syntax');
    });
  }
});

describe('limits', () => {
  it('refuses a source longer than the limit', () => {
    expect(failure(() => compile(`1${' + 1'.repeat(LIMITS.sourceLength / 4)}`)).kind).toBe('syntax');
  });

  it('refuses nesting deeper than the limit, and accepts long flat chains', () => {
    const deep = `${'('.repeat(LIMITS.depth + 1)}1${')'.repeat(LIMITS.depth + 1)}`;
    expect(failure(() => compile(deep)).message).toContain('nested deeper');
    expect(failure(() => compile(`${'!'.repeat(LIMITS.depth + 1)}a`)).kind).toBe('syntax');
    expect(failure(() => compile(`x${'.trim()'.repeat(LIMITS.depth + 1)}`)).kind).toBe('syntax');
    const flat = Array.from({ length: 500 }, (_, i) => `x == "${i}"`).join(' || ');
    expect(run(flat, { x: '499' })).toBe(true);
  });

  it('stops an evaluation past the step limit', () => {
    const items = 'a,'.repeat(LIMITS.steps / 2 + 1);
    expect(failure(() => run('x.split(",").filter(e => e == "a").length', { x: items })).kind).toBe('limit');
    expect(run('x.split(",").filter(e => e == "a").length', { x: 'a,'.repeat(1000) })).toBe(1000);
  });

  it('runs a regex on at most the regex input limit, whatever the pattern', () => {
    // This profile pattern backtracks quadratically on a long input without a slash.
    const subtype = 'a'.repeat(LIMITS.regexInput + 1);
    const source = 'Subtype != null && /^[-\\w+\\.]+\\/[-\\w+\\.]+$/.test(Subtype)';
    expect(failure(() => run(source, { Subtype: subtype })).kind).toBe('limit');
    expect(run(source, { Subtype: 'a'.repeat(LIMITS.regexInput) })).toBe(false);
    expect(run(source, { Subtype: 'text/xml' })).toBe(true);
    expect(failure(() => run('x.search(/a/)', { x: subtype })).kind).toBe('limit');
    expect(failure(() => run('x.split(/,/)', { x: subtype })).kind).toBe('limit');
  });

  it('refuses to build a string longer than the string limit', () => {
    const half = 'x'.repeat(LIMITS.stringLength / 2 + 1);
    expect(failure(() => run('a + a', { a: half })).kind).toBe('limit');
    expect(failure(() => run('a.indexOf("y")', { a: half + half })).kind).toBe('limit');
  });
});

describe('random input', () => {
  it('either compiles or throws a syntax ExpressionError, and evaluates or throws an ExpressionError (seeded, 5,000 sources)', () => {
    const pieces = [
      'a',
      'b',
      's',
      'n',
      '1',
      '0.5',
      '"x"',
      "'y'",
      '/a+/',
      '/[/]/g',
      '(',
      ')',
      '.',
      ',',
      '?',
      ':',
      '=>',
      '!',
      '-',
      '+',
      '*',
      '/',
      '%',
      '&',
      '|',
      '^',
      '<<',
      '>>',
      '==',
      '===',
      '!=',
      '<',
      '>=',
      '&&',
      '||',
      'null',
      'true',
      'Math',
      'abs',
      'length',
      'split',
      'filter',
      'test',
      'toString',
      'e',
      ' ',
    ];
    const scope = scopeOf({ a: 1, b: null, s: 'p,q', n: 2.5 });
    let seed = 14;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let compiled = 0;
    for (let i = 0; i < 5000; i++) {
      const source = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      let expression;
      try {
        expression = compile(source);
      } catch (error) {
        expect([source, error instanceof ExpressionError && error.kind]).toEqual([source, 'syntax']);
        continue;
      }
      compiled++;
      try {
        evaluate(expression, scope);
      } catch (error) {
        expect([source, error instanceof ExpressionError && error.kind !== 'syntax']).toEqual([source, true]);
      }
    }
    expect(compiled).toBeGreaterThan(100);
  });
});
