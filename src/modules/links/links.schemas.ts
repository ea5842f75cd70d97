import { EXAMPLE_SIGNATURE, OptionalText, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';

export const SendLinkBody = signedBody({
  order_uuid: Uuid,
  destination: Type.String({ minLength: 3, maxLength: 254, description: 'e-mail address, or mobile number (E.164 with +, or Spanish national)' }),
  subject: Type.String({ minLength: 1, maxLength: 200, description: 'e-mail subject; for SMS the sender id (letters and digits, 11 at most)' }),
  template_uuid: OptionalText(64, { description: 'payment-card template of the page the link opens' }),
  language: OptionalText(10, { description: 'ISO 639-1: ES, EN, CA, EU, GL, PT, FR, DE, IT, NL, PL, RO, SV, DA (default ES)' }),
}, {
  title: 'SendLinkRequest',
  examples: [{ signature: EXAMPLE_SIGNATURE, order_uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', destination: 'lucia@example.com', subject: 'Your order 42 at Shop', language: 'EN' }],
});

export const SendLinkResponse = envelope({
  delivery: Type.Boolean({ description: 'true when the channel accepted the message' }),
  channel: Type.Enum(['EMAIL', 'SMS']),
}, { title: 'SendLinkResponse' });
