// wpapi against `folio serve --compat wordpress`: discovery by the Link
// header, _paging from X-WP-Total/X-WP-TotalPages, the wp/v2 handlers on
// the client itself.
import { defineWpapiSuite } from './wpapi-suite.mjs';

defineWpapiSuite({ compat: true });
