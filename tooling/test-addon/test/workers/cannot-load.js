// Imports a package that does not exist, so the module never runs.
import '@rmmjs/no-such-package';
