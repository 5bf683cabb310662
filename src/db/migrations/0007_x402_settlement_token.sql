ALTER TABLE `x402_settlements` ADD `token` text;
