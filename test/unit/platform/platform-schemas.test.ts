import {
  dateTextOf,
  serviceListSchema,
  serviceSchema,
  statusCodeOf,
  textOf,
} from '../../../src/platform/schemas';
import {
  documentedServiceSchema,
  unexpectedFields,
} from '../../../src/platform/documented-schemas';
import { buildService } from '../../../src/simulator/seed-services';
import { GUIDE_PART, guideShapedService, oddlyShapedService } from '../../support/service-shapes';

describe('platform schemas', () => {
  it('read both date formats as UTC ISO-8601, and keep any other text as it came', () => {
    expect(dateTextOf('2026-03-05 14:22:10')).toBe('2026-03-05T17:22:10.000Z');
    expect(dateTextOf('2026-03-05T14:22:10-03:00')).toBe('2026-03-05T17:22:10.000Z');
    expect(dateTextOf('2026-03-05T17:22:10.000Z')).toBe('2026-03-05T17:22:10.000Z');
    expect(dateTextOf('yesterday')).toBe('yesterday');
    expect(dateTextOf({ at: 1 })).toBeUndefined();
  });

  it('keep unknown fields and accept numeric strings where the connector reads numbers', () => {
    const parsed = serviceSchema.parse({
      id: '12',
      brand_new_field: { x: 1 },
      status: { code: '99' },
      labour: { cutting: { price: '10.50' } },
    });
    expect(parsed).toMatchObject({
      id: 12,
      brand_new_field: { x: 1 },
      status: { code: 99 },
      labour: { cutting: { price: 10.5 } },
    });
  });

  it('accept a service with every optional block missing', () => {
    expect(serviceSchema.parse({ id: 7 })).toEqual({ id: 7 });
  });

  it('find nothing unexpected in a seeded service or in the import guide example', () => {
    expect(unexpectedFields(documentedServiceSchema, buildService(1234, 42))).toEqual([]);
    expect(unexpectedFields(documentedServiceSchema, guideShapedService(1))).toEqual([]);
    expect(serviceSchema.parse(guideShapedService(1)).parts).toEqual([
      GUIDE_PART,
      { ...GUIDE_PART, function: 'Base', machining: null },
    ]);
  });

  it('read an oddly shaped service, passing the odd blocks through and naming them', () => {
    const body = oddlyShapedService(5);
    const parsed = serviceSchema.parse(body);
    expect(parsed).toMatchObject({ id: 5, client: 'CLI-0001', parts: body.parts });
    const fields = unexpectedFields(documentedServiceSchema, body);
    expect(fields).toContainEqual({
      field: 'parts[].machining.startSide',
      problem: expect.any(String),
    });
    expect(fields.map((f) => f.field)).not.toContain('id');
    // One entry per folded path, however many parts share the problem.
    expect(new Set(fields.map((f) => f.field)).size).toBe(fields.length);
  });

  it('name the field of a broken price', () => {
    const result = serviceSchema.safeParse({ id: 1, materials: { boards: [{}, { price: 'x' }] } });
    expect(result.error?.issues[0]?.path).toEqual(['materials', 'boards', 1, 'price']);
  });

  it('read codes, status codes and texts that passed through', () => {
    expect(textOf(12)).toBe('12');
    expect(textOf('PED-1')).toBe('PED-1');
    expect(textOf(null)).toBeUndefined();
    expect(statusCodeOf({ code: '6' })).toBe(6);
    expect(statusCodeOf({ code: 'six' })).toBeUndefined();
    expect(statusCodeOf('6')).toBeUndefined();
  });

  it('treat a missing meta.next as the last page', () => {
    expect(serviceListSchema.parse({ resource: [], meta: {} }).meta.next).toBeUndefined();
    expect(serviceListSchema.safeParse({ resource: [] }).success).toBe(false);
  });
});
