// Reads WARC files with warcio.js, an independent reader, and prints one JSON line per record,
// so the C++ tests can check what bloomcrawl wrote. WARCIO_DIR names the installed package.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { WARCParser } = await import(pathToFileURL(path.join(process.env.WARCIO_DIR, 'dist/index.js')).href);

for (const file of process.argv.slice(2)) {
  const parser = new WARCParser(fs.createReadStream(file));
  for await (const record of parser) {
    const out = {
      file: path.basename(file),
      type: record.warcType,
      id: record.warcHeader('WARC-Record-ID'),
      date: record.warcHeader('WARC-Date'),
      target: record.warcTargetURI,
      ip: record.warcHeader('WARC-IP-Address'),
      concurrent_to: record.warcHeader('WARC-Concurrent-To'),
      payload_digest: record.warcPayloadDigest,
      block_digest: record.warcHeader('WARC-Block-Digest'),
      content_length: Number(record.warcContentLength),
    };
    if (record.httpHeaders) {
      out.status = record.httpHeaders.statusCode;
      out.method = record.httpHeaders.method;
      out.http_headers = Object.fromEntries(record.httpHeaders.headers);
    }
    out.payload_base64 = Buffer.from(await record.readFully(false)).toString('base64');
    console.log(JSON.stringify(out));
  }
}
