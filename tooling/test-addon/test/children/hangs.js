// Never ends by itself (runInProcess's timeout kills it).
setInterval(() => {}, 1000);
