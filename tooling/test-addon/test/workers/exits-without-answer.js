// Exits with code 3 and never answers.
process.exit(3);
