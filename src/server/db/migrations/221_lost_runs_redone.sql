-- A run whose lease ran out (its runner stopped reporting: killed, its machine gone) is queued
-- again once, so the work is done without anyone waking the agent (runs/redo-lost.ts). redo_of
-- names the lost run a run does again: a redo that is lost too is not redone again, so an agent
-- that brings its runner down cannot loop. No foreign key: deleting a company's runs would look
-- up each one's redoes in an index kept for that alone; the id is a note, read with its run.
ALTER TABLE runs ADD COLUMN redo_of uuid;
