ALTER TABLE `api_keys` ADD `admin` integer DEFAULT 0 NOT NULL;
