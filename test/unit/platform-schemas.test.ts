import { serviceListSchema, serviceSchema } from '../../src/platform/schemas';
import { buildService } from '../../src/platform/simulator/seed-services';

describe('platform schemas', () => {
  it('accept both date formats and normalise them to UTC ISO-8601', () => {
    const list = serviceListSchema.parse({
      resource: [
        { id: 1, status: { code: 4, created_date: '2026-03-05 14:22:10' } },
        {
          id: 2,
          status: { code: 6, created_date: '2026-03-05T14:22:10-03:00', finished_date: null },
        },
        { id: 3, status: { code: 7, created_date: '2026-03-05T17:22:10.000Z' } },
      ],
      meta: { count: 3, next: null },
    });
    expect(list.resource.map((s) => s.status?.created_date)).toEqual([
      '2026-03-05T17:22:10.000Z',
      '2026-03-05T17:22:10.000Z',
      '2026-03-05T17:22:10.000Z',
    ]);
  });

  it('keep unknown fields and accept numeric strings', () => {
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

  it('read a whole seeded service, parts included', () => {
    const parsed = serviceSchema.parse(buildService(1234, 42));
    expect(parsed.parts?.[0]).toEqual(
      expect.objectContaining({
        quantity: expect.any(Number),
        c: expect.any(Number),
        l: expect.any(Number),
      }),
    );
  });

  it('name the field of a broken shape', () => {
    const result = serviceSchema.safeParse({
      id: 1,
      parts: [{ quantity: 1 }, { quantity: 'two' }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['parts', 1, 'quantity']);
    expect(
      serviceSchema.safeParse({ id: 1, status: { code: 4, created_date: 'yesterday' } }).error
        ?.issues[0]?.message,
    ).toBe('expected a date');
  });

  it('treat a missing meta.next as the last page', () => {
    expect(serviceListSchema.parse({ resource: [], meta: {} }).meta.next).toBeUndefined();
    expect(serviceListSchema.safeParse({ resource: [] }).success).toBe(false);
  });
});
