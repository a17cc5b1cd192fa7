// n8n's logger prints node errors to the console; the tests assert on those errors instead.
process.env.N8N_LOG_LEVEL ??= 'silent';
