// lint as: src/checkout/fixture.ts — a use case reaching for a transport.
import express from 'express';

export const app = express();
