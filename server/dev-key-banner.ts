/**
 * The stderr banner of `npm start` when it generated a development key: the key and a curl line to
 * paste (the JSON log carries the key too, for machines).
 * @example process.stderr.write(devKeyBanner('http://127.0.0.1:3000', 'dev_abc'));
 */
export function devKeyBanner(baseUrl: string, apiKey: string): string {
  return [
    '',
    `Development API key (generated for this run; set API_KEYS to choose your own): ${apiKey}`,
    'Try it:',
    `  export KEY=${apiKey}`,
    `  curl -s -X POST ${baseUrl}/v1/sessions/sess_paused_1/resume -H "Authorization: Bearer $KEY"`,
    '',
    '',
  ].join('\n');
}
