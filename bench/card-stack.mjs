// The card's stack as its documentation shows it, started as its users start it
// (`node bench/card-stack.mjs <spec> <key>`): express 5, express.json(), express-openapi-validator's
// middleware validating requests and responses on the same spec, the resume route answering
// 409 not_paused, a plain error handler. Plain JavaScript under node, nothing of ours.
// Prints its URL on stdout once it listens on 127.0.0.1, port 0.
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

const [apiSpec, key] = process.argv.slice(2);
if (!apiSpec || !key) {
  process.stderr.write('usage: node bench/card-stack.mjs <openapi.yaml> <api key>\n');
  process.exit(2);
}
const app = express();
app.use(express.json());
app.use(
  OpenApiValidator.middleware({
    apiSpec,
    validateRequests: true,
    validateResponses: true,
    validateSecurity: { handlers: { bearerAuth: (req) => req.headers.authorization === `Bearer ${key}` } },
  }),
);
app.post('/v1/sessions/:session_id/resume', (_req, res) => {
  res.status(409).json({ success: false, error: 'not_paused', message: 'Session is not paused (not_paused).' });
});
app.use((err, _req, res, _next) => {
  res.status(err.status ?? 500).json({ success: false, error: 'error', message: err.message ?? 'error' });
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
