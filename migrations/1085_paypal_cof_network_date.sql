-- PayPal connector: the date (MMDD) of a card's first payment's network transaction reference, as PayPal
-- gives it. A merchant-initiated payment quotes the reference with its network and date; PayPal requires
-- the date for Mastercard and Discover references.
alter table paypal_cof add column network_date text;
