/** The e-mails of the dashboard's sign-in: the password reset link and the failed sign-ins warning. */

export function resetEmail(language: string, username: string, link: string) {
  const texts: Record<string, { subject: string; body: string }> = {
    ES: { subject: 'Restablece tu contraseña de paygate', body: `Hola ${username},\n\nPara elegir una contraseña nueva abre este enlace (vale 30 minutos y una sola vez):\n\n${link}\n\nSi no lo has pedido tú, ignora este mensaje.\n` },
    EN: { subject: 'Reset your paygate password', body: `Hello ${username},\n\nTo choose a new password open this link (it works for 30 minutes, once):\n\n${link}\n\nIf you did not ask for it, ignore this message.\n` },
    PT: { subject: 'Redefina a sua palavra-passe paygate', body: `Olá ${username},\n\nPara escolher uma palavra-passe nova abra esta ligação (válida 30 minutos, uma só vez):\n\n${link}\n\nSe não foi você que pediu, ignore esta mensagem.\n` },
  };
  return texts[language] ?? texts.EN;
}

/** The e-mail that tells a user their sign-in was locked at an address, or is slowed down. */
export function lockEmail(language: string, username: string, how: 'pair' | 'slow', ip: string, minutes: number, failures: number) {
  const texts: Record<string, { subject: string; body: string }> = {
    ES: {
      subject: 'Intentos fallidos de entrar en tu cuenta de paygate',
      body: how === 'pair'
        ? `Hola ${username},\n\nHa habido ${failures} intentos fallidos de entrar con tu usuario desde la dirección ${ip}: desde ella queda bloqueado ${minutes} minutos. Desde las direcciones donde ya has entrado puedes seguir haciéndolo.\n\nSi no has sido tú, cambia tu contraseña y avisa a un responsable de tu comercio.\n`
        : `Hola ${username},\n\nHa habido ${failures} intentos fallidos de entrar con tu usuario desde varias direcciones. Desde las direcciones donde ya has entrado puedes seguir haciéndolo; desde otras, cada intento espera unos segundos.\n\nSi no has sido tú, cambia tu contraseña y avisa a un responsable de tu comercio.\n`,
    },
    EN: {
      subject: 'Failed sign-ins to your paygate account',
      body: how === 'pair'
        ? `Hello ${username},\n\nThere were ${failures} failed sign-ins with your user from the address ${ip}: from there it is locked for ${minutes} minutes. From the addresses you signed in from before you can still sign in.\n\nIf it was not you, change your password and tell a manager of your merchant.\n`
        : `Hello ${username},\n\nThere were ${failures} failed sign-ins with your user from several addresses. From the addresses you signed in from before you can still sign in; from others, each try now waits a few seconds.\n\nIf it was not you, change your password and tell a manager of your merchant.\n`,
    },
    PT: {
      subject: 'Tentativas falhadas de entrar na sua conta paygate',
      body: how === 'pair'
        ? `Olá ${username},\n\nHouve ${failures} tentativas falhadas de entrar com o seu utilizador a partir do endereço ${ip}: a partir dele fica bloqueado ${minutes} minutos. A partir dos endereços onde já entrou pode continuar a fazê-lo.\n\nSe não foi você, altere a sua palavra-passe e avise um responsável do seu comerciante.\n`
        : `Olá ${username},\n\nHouve ${failures} tentativas falhadas de entrar com o seu utilizador a partir de vários endereços. A partir dos endereços onde já entrou pode continuar a fazê-lo; a partir de outros, cada tentativa espera uns segundos.\n\nSe não foi você, altere a sua palavra-passe e avise um responsável do seu comerciante.\n`,
    },
  };
  return texts[language] ?? texts.EN;
}
