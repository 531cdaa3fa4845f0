-- A read-only role: everything an operator reads, nothing it may change (issue 19, part 3).
ALTER TYPE "Role" ADD VALUE IF NOT EXISTS 'viewer';
