/**
 * Service bodies as the platform may really send them, for the tests of lenient reading.
 * `guideShapedService` has parts exactly as docs/platform.md's part import example writes them.
 */

/** One part as the import-format guide writes it (docs/platform.md, ServicePartInfo). */
export const GUIDE_PART = {
  quantity: 2,
  c: 720,
  l: 550,
  function: 'Lateral',
  complement: 'Balcão pia',
  c1: 'Branco 0.45',
  c2: null,
  l1: 'Branco 0.45',
  l2: null,
  material: 'Branco 18',
  machining: {
    x: 720,
    y: 550,
    z: 18,
    startSide: 0,
    horizontalDrills: [
      { corner: 2, direction: 'XP', x: 0, y: 37, z: 9, depth: 22, diameter: 8, face: 'i' },
    ],
  },
};

/** A whole service whose parts take the guide's shape; it costs R$ 346,00. */
export function guideShapedService(id: number): Record<string, unknown> {
  return {
    id,
    internal_code: null,
    observation: null,
    status: { code: 4, created_date: '2026-11-20 09:15:00' },
    client: { internal_code: 'CLI-0001' },
    labour: {
      cutting: { price: 36, quantity: 4 },
      edging: { price: 10, quantity: 5 },
      machining: { price: 0, resume: { drills: [{ diameter: 8, quantity: 2 }] } },
      packing: { price: 20 },
      delivery: { price: 0 },
    },
    materials: {
      boards: [{ internal_code: 'BR18', description: 'Branco 18', price: 280, quantity: 1 }],
      edges: [],
      components: [],
    },
    parts: [GUIDE_PART, { ...GUIDE_PART, function: 'Base', machining: null }],
  };
}

/**
 * Every block shaped oddly: numbers as strings and strings as numbers, nulls where objects are
 * expected, a string where a list is expected, extra fields everywhere. Only the priced lines
 * are readable: 2 x 100.00 + 10.50 + 25 = R$ 235,50.
 */
export function oddlyShapedService(id: number): Record<string, unknown> {
  return {
    id: String(id),
    internal_code: 998877,
    observation: { text: 'not a string' },
    status: { code: '4', created_date: 20261120, finished_date: 'yesterday', flag: true },
    client: 'CLI-0001',
    labour: {
      cutting: { price: '10.50', quantity: 'three' },
      edging: null,
      machining: { price: null, resume: 'none' },
      packing: { price: 25, note: 7 },
      delivery: null,
      gluing: { price: 'free' },
    },
    materials: {
      boards: [
        { internal_code: 1234, description: 5, price: '100', quantity: '2', thickness: 'eighteen' },
      ],
      edges: null,
      components: [],
      back: 'none',
    },
    parts: [
      { ...GUIDE_PART, quantity: '2', c: '720', function: 7, c2: 0, machining: 'none' },
      {
        ...GUIDE_PART,
        machining: { startSide: 'c1', horizontalDrills: [{ corner: 'c1l1', face: 1 }, null] },
      },
      'garbage',
      null,
    ],
    extra_block: { anything: [1, 'two', null] },
  };
}
