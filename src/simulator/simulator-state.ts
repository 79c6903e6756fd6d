import { buildService, buildStatus, seededInternalCode, seededStatusCode } from './seed-services';

export interface SimulatorCredentials {
  email: string;
  password: string;
  apiKey: string;
}

export type PaymentEndpoint = 'checkout-url' | 'finish-checkout' | 'cancel-checkout';

/** A payment call the simulator received, whatever it answered. */
export interface RecordedPaymentCall {
  endpoint: PaymentEndpoint;
  serviceId: number | undefined;
  body: unknown;
  idempotencyKey: string | undefined;
  /** The W3C `traceparent` the call carried, if any (a connector with tracing on). */
  traceparent?: string | undefined;
  /** What the simulator answered (faulted requests never get here). */
  status: number;
  /** The account (its email) the call was made with: each shop has its own. */
  account: string;
  receivedAt: string;
}

interface Override {
  internal_code?: string;
  status?: Record<string, unknown>;
  /** Serves this body as the service's detail, exactly as given (odd shapes included). */
  detail?: Record<string, unknown>;
}

/** The simulated platform's data: seeded services, the changes made to them, and the calls received. */
export class SimulatorState {
  readonly payments: RecordedPaymentCall[] = [];
  /** Called with every payment call received (the simulator logs them). */
  onPayment: ((call: RecordedPaymentCall) => void) | undefined;
  private readonly overrides = new Map<number, Override>();
  private readonly extraAccounts: SimulatorCredentials[] = [];
  private ids: number[] | undefined;

  constructor(
    readonly credentials: SimulatorCredentials,
    readonly seed: number,
    readonly firstServiceId: number,
    readonly serviceCount: number,
    readonly defaultPageSize: number,
    readonly maxPageSize: number,
  ) {}

  /** Every account the platform accepts: the first one's, and those added (one per shop). */
  accounts(): SimulatorCredentials[] {
    return [this.credentials, ...this.extraAccounts];
  }

  /** Another shop's account, seeing the same services (the simulator has one catalogue). */
  addAccount(credentials: SimulatorCredentials): void {
    if (!this.accounts().some((known) => known.apiKey === credentials.apiKey))
      this.extraAccounts.push(credentials);
  }

  exists(id: number): boolean {
    return (
      Number.isSafeInteger(id) &&
      id >= this.firstServiceId &&
      id < this.firstServiceId + this.serviceCount
    );
  }

  /** Every service id, ascending (the platform's list order). */
  serviceIds(): readonly number[] {
    this.ids ??= Array.from({ length: this.serviceCount }, (_, i) => this.firstServiceId + i);
    return this.ids;
  }

  statusCode(id: number): number {
    const status = this.overrides.get(id)?.status;
    return typeof status?.code === 'number' ? status.code : seededStatusCode(id);
  }

  internalCode(id: number): string | null {
    return this.overrides.get(id)?.internal_code ?? seededInternalCode(id);
  }

  private statusBlock(id: number): Record<string, unknown> {
    return this.overrides.get(id)?.status ?? buildStatus(id, seededStatusCode(id), this.seed);
  }

  /** The light item of GET /services. */
  listItem(id: number): {
    id: number;
    internal_code: string | null;
    status: Record<string, unknown>;
  } {
    return { id, internal_code: this.internalCode(id), status: this.statusBlock(id) };
  }

  /** The detail of GET /services/:id, or undefined when there is no such service. */
  service(id: number): Record<string, unknown> | undefined {
    if (!this.exists(id)) return undefined;
    const detail = this.overrides.get(id)?.detail;
    if (detail) return detail;
    return {
      ...buildService(id, this.seed),
      internal_code: this.internalCode(id),
      status: this.statusBlock(id),
    };
  }

  /** Moves a service to status `code`, with that status's dates, as the platform would. */
  setStatus(id: number, code: number): void {
    this.override(id, { status: buildStatus(id, code, this.seed) });
  }

  override(id: number, change: Override): void {
    this.overrides.set(id, { ...this.overrides.get(id), ...change });
  }

  recordPayment(call: Omit<RecordedPaymentCall, 'receivedAt'>): void {
    const recorded = { ...call, receivedAt: new Date().toISOString() };
    this.payments.push(recorded);
    this.onPayment?.(recorded);
  }
}
