// wpapi against `folio serve` with the default names: /api/, svc/v2
// through .namespace('svc/v2'), X-API-* headers.
import { defineWpapiSuite } from './wpapi-suite.mjs';

defineWpapiSuite({ compat: false });
