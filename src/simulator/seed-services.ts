/*
 * Deterministic, realistic services for the simulator: each is derived from its id and a
 * seed, so ten thousand of them cost no memory until asked for.
 */

/** A small, fast, seedable PRNG (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BOARDS = [
  { internal_code: 'MDF-BR-TX-15', description: 'MDF Branco TX 15mm', thickness: 15, price: 289.9 },
  { internal_code: 'MDF-BR-TX-18', description: 'MDF Branco TX 18mm', thickness: 18, price: 329.9 },
  {
    internal_code: 'MDF-CV-HN-18',
    description: 'MDF Carvalho Hanover 18mm',
    thickness: 18,
    price: 412.5,
  },
  { internal_code: 'MDF-LF-18', description: 'MDF Louro Freijó 18mm', thickness: 18, price: 398.0 },
  {
    internal_code: 'MDP-CZ-CR-15',
    description: 'MDP Cinza Cristal 15mm',
    thickness: 15,
    price: 219.9,
  },
] as const;
const BACK_BOARD = {
  internal_code: 'MDF-BR-6',
  description: 'MDF Branco 6mm (fundo)',
  thickness: 6,
  price: 129.9,
};

const EDGES = {
  'MDF-BR-TX-15': {
    internal_code: 'FITA-BR-22',
    description: 'Fita de borda PVC Branco TX 22x0,45mm',
    width: 22,
    price: 1.35,
  },
  'MDF-BR-TX-18': {
    internal_code: 'FITA-BR-22',
    description: 'Fita de borda PVC Branco TX 22x0,45mm',
    width: 22,
    price: 1.35,
  },
  'MDF-CV-HN-18': {
    internal_code: 'FITA-CV-22',
    description: 'Fita de borda PVC Carvalho Hanover 22x1mm',
    width: 22,
    price: 2.9,
  },
  'MDF-LF-18': {
    internal_code: 'FITA-LF-22',
    description: 'Fita de borda PVC Louro Freijó 22x1mm',
    width: 22,
    price: 2.75,
  },
  'MDP-CZ-CR-15': {
    internal_code: 'FITA-CZ-22',
    description: 'Fita de borda PVC Cinza Cristal 22x0,45mm',
    width: 22,
    price: 1.6,
  },
} as const;

const COMPONENTS = [
  {
    internal_code: 'DOB-35-AMORT',
    description: 'Dobradiça caneco 35mm com amortecedor',
    unit: 'un',
    price: 12.9,
  },
  {
    internal_code: 'CORR-TEL-450',
    description: 'Corrediça telescópica 450mm (par)',
    unit: 'par',
    price: 38.5,
  },
  {
    internal_code: 'PUX-PERF-AL',
    description: 'Puxador perfil alumínio 1m',
    unit: 'm',
    price: 24.0,
  },
  {
    internal_code: 'PAR-40-CENTO',
    description: 'Parafuso 4,0x40mm (cento)',
    unit: 'cento',
    price: 9.8,
  },
] as const;

const PART_FUNCTIONS = [
  'Lateral',
  'Base',
  'Tampo',
  'Prateleira',
  'Porta',
  'Divisória',
  'Frente de gaveta',
] as const;
const STATUS_CYCLE = [4, 4, 4, 6, 7, 9, 4, 6] as const;

const pick = <T>(items: readonly T[], r: () => number): T =>
  items[Math.floor(r() * items.length)] as T;
const money = (value: number): number => Math.round(value * 100) / 100;

/** "YYYY-MM-DD HH:MM:SS", zoneless, the way real answers carry dates [seen]. */
function platformDateText(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** The status block of a service: dates filled in as far as its code has come. */
export function buildStatus(id: number, code: number, seed: number): Record<string, unknown> {
  const r = random(seed * 7919 + id);
  const created = new Date(
    Date.UTC(2026, 0, 5) + Math.floor(r() * 300) * 86_400_000 + Math.floor(r() * 36_000_000),
  );
  const later = (days: number): string =>
    platformDateText(new Date(created.getTime() + days * 86_400_000));
  return {
    code,
    created_date: platformDateText(created),
    budgeted_date: later(0),
    purchased_date: code >= 6 ? later(2) : null,
    authorized_date: code >= 6 ? later(2) : null,
    finished_date: code >= 9 ? later(9) : null,
  };
}

/** The seeded status code of a service. */
export function seededStatusCode(id: number): number {
  return STATUS_CYCLE[id % STATUS_CYCLE.length] as number;
}

/** The seeded ERP order code: none until the order was approved. */
export function seededInternalCode(id: number): string | null {
  return seededStatusCode(id) >= 6 ? `PED-${String(id).padStart(6, '0')}` : null;
}

function buildParts(r: () => number, board: Board) {
  const edge = EDGES[board.internal_code].description;
  const count = 3 + Math.floor(r() * 6);
  return Array.from({ length: count }, () => {
    const fn = pick(PART_FUNCTIONS, r);
    const c = 300 + Math.floor(r() * 19) * 100;
    const l = 200 + Math.floor(r() * 9) * 50;
    const hinged = fn === 'Porta';
    return {
      quantity: 1 + Math.floor(r() * 3),
      c,
      l,
      function: fn,
      complement: hinged ? 'abertura esquerda' : null,
      material: board.internal_code,
      c1: edge,
      c2: fn === 'Lateral' || fn === 'Divisória' ? null : edge,
      l1: edge,
      l2: hinged ? edge : null,
      machining: hinged
        ? {
            x: c,
            y: l,
            z: board.thickness,
            startSide: 0,
            horizontalDrills: [100, c - 100].map((x) => ({
              corner: 2,
              direction: 'XP',
              x,
              y: 22,
              z: board.thickness / 2,
              depth: 13,
              diameter: 35,
              face: 'i',
            })),
          }
        : null,
    };
  });
}

type Board = (typeof BOARDS)[number];
type Part = ReturnType<typeof buildParts>[number];

/** What a service's parts add up to: sheets of board, meters of edge, drills and doors. */
function partTotals(parts: Part[]) {
  const area = parts.reduce((sum, p) => sum + (p.c * p.l * p.quantity) / 1e6, 0);
  const edgeLength = parts.reduce((sum, p) => sum + ((p.c + p.l) * 2 * p.quantity) / 1000, 0);
  const drillsOf = (p: Part) => (p.machining?.horizontalDrills.length ?? 0) * p.quantity;
  return {
    count: parts.length,
    sheets: Math.max(1, Math.ceil(area / (2.75 * 1.85 * 0.85))),
    edgeMeters: Math.ceil(edgeLength),
    drills: parts.reduce((sum, p) => sum + drillsOf(p), 0),
    doors: parts.filter((p) => p.function === 'Porta').reduce((sum, p) => sum + p.quantity, 0),
  };
}

/** The full detail of service `id`, as GET /services/:id answers it [doc fields + parts]. */
export function buildService(id: number, seed: number): Record<string, unknown> {
  const r = random(seed * 104729 + id);
  const board = pick(BOARDS, r);
  const parts = buildParts(r, board);
  const totals = partTotals(parts);
  const code = seededStatusCode(id);
  // Each field in this order: the generator's draws follow it.
  return {
    id,
    internal_code: seededInternalCode(id),
    observation: r() < 0.3 ? 'Entregar no período da manhã.' : null,
    status: buildStatus(id, code, seed),
    client: { internal_code: `CLI-${String((id % 40) + 1).padStart(4, '0')}` },
    labour: labourOf(totals, r),
    materials: materialsOf(board, totals, r),
    parts,
  };
}

function labourOf(totals: ReturnType<typeof partTotals>, r: () => number) {
  const { sheets, edgeMeters, drills, count } = totals;
  return {
    cutting: { price: money(sheets * 18.5), quantity: count * 4 },
    edging: { price: money(edgeMeters * 1.9), quantity: edgeMeters },
    machining: {
      price: money(drills * 1.5),
      resume: { drills: drills ? [{ diameter: 35, quantity: drills }] : [], rip: [], filister: [] },
    },
    packing: { price: 25 },
    delivery: { price: r() < 0.5 ? 0 : 89.9 },
  };
}

function materialsOf(board: Board, totals: ReturnType<typeof partTotals>, r: () => number) {
  const { sheets, edgeMeters, doors, count } = totals;
  const edge = EDGES[board.internal_code];
  return {
    boards: [{ ...board, quantity: sheets, parts: count, length: 2750, width: 1850 }],
    edges: [{ ...edge, quantity: edgeMeters, thickness: 0.45, unit: 'm', applied: edgeMeters }],
    components: doors
      ? [{ ...COMPONENTS[0], quantity: doors * 2, thickness: null }]
      : [{ ...(r() < 0.5 ? COMPONENTS[1] : COMPONENTS[3]), quantity: 1, thickness: null }],
    ...(r() < 0.2 ? { back: [{ ...BACK_BOARD, quantity: 1 }] } : {}),
  };
}
