// This folder is not shipped: n8n's community-node rules (the root eslint.config.mjs) do not apply here.
export { default } from '../scripts/eslint-not-shipped.mjs';
