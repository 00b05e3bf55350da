/** Every plain field of a company create body but name, e-mail and the lists (the files vary those). */
export const companyDetails = {
  cvr: '12345678',
  phone: '+45 1234 5678',
  address: 'Main st 1',
  city: 'Aarhus',
  zip: '8000',
  country: 'DK',
  website: 'https://acme.dk',
  industry: 'Software',
  employees: 42,
};
